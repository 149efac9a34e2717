import Foundation

extension ClientIdentityExample {
  /// A P-256 key and a self-signed certificate for "Example Client", made with the openssl command
  /// line for this example (`openssl pkcs12 -export`, passphrase "example").
  static let file = Data(
    base64Encoded: """
      MIIEmQIBAzCCBE8GCSqGSIb3DQEHAaCCBEAEggQ8MIIEODCCAsIGCSqGSIb3DQEHBqCCArMwggKvAgEAMIICqAYJKoZIhvcNAQcB
      MFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAiQUawNGeWyLgICCAAwDAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEF8T
      Vd7EeeAoBh7WwfoTcFyAggJAmVWyY55gImoFnkC8i9QXkHtX3IM3+9DZ1KjdUzfgQBFlhwP8kensSa3+ZCPWyuKL+Q1C+iNzE3p1
      5CX9e/1Q9EdOjpOZrvZMWrrmh5to/WMpKjc3BZab337eBHWwZAesrhaxfnibfsC/u6UHeTvKONd2Kbjf/t/P6p9+/Dw3Fjxp5YjA
      lNnC7XQ7ii52cgCvWYMtNdzXgaO4o+WW2zbPfGQKIMdItjMuPSS71LhHzxiaOuZrVN7X/YmDJ3oJvTlovnN1unF6Z2WmmbqrTgGC
      yXg9irdSYJRjiw8t2+kXmY8hQbnHop7/7tma2+k3OkiCurnNYH39EM0rfzdAqiHbPyAq4C7g7swZ1tqShCdMMVUn3ikdW638suhk
      TuXolACXCkAQx+VF7A4BObGd5z2evTntnw8fUNR0jL0/qrtadfbC2DGxbS9dSPBAq7X6AMTXBIDTRMnU0sA8k9yu2sogfQnu9e2j
      JLN7Aj7GNYo7E99/fjaj0NRYuOmR32Nw7wEqSu59RR9XNDKPLhGEePA/pF13tJRVDz1QlRw8w6GggEYQo/KSNmmCf0DloMVDcoXr
      /XA0+cX+r2wQU6BFNrYVZGy80WZTFe6t6lKP0HBk7KykviDNy0ousGugYo67R/MEu0HU8jUGmZ5ELQtP1Hv9R+oJHe75OkyFib0Q
      7yoM3tZGeKMaUMkKDodfNddWP6zNnx++qGgUD6LfFyPNUDmBI26cDDSwdXHsKL2SYWqYB7tHIesht47/tWtCD8quya7MMIIBbgYJ
      KoZIhvcNAQcBoIIBXwSCAVswggFXMIIBUwYLKoZIhvcNAQwKAQKgge8wgewwVwYJKoZIhvcNAQUNMEowKQYJKoZIhvcNAQUMMBwE
      CBvGRSt84IWAAgIIADAMBggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQoM3njdHKUJgyOHSa1qeXCASBkCxGWUDr1ECuCBkBxKFL
      +iRrn5jPS1W2qh6M6Tt9DlrvcEOxeymCnhCiqoq43l1hoDCZiSNnvhHkEG3NQvdm0sA1K7zYLZjaAevIRNsvb088Y3iBF6ZDYF94
      A0PODIQz4CLZfICDFhNttZwro/8DUpUVj87qvqpQPUxOXggCO10g9EO2GAqViZxIV5hVErt42TFSMCMGCSqGSIb3DQEJFTEWBBTH
      uxSGGbQHkZev/THb7p8plWFzbzArBgkqhkiG9w0BCRQxHh4cAEUAeABhAG0AcABsAGUAIABDAGwAaQBlAG4AdDBBMDEwDQYJYIZI
      AWUDBAIBBQAEIMk9UigIXLaesFJRnJvjPiKiIUltBu6yJ293MoDqzxMOBAirmlM98dqRNgICCAA=
      """, options: .ignoreUnknownCharacters)!
}
