internal import COpenSSL

/// X.509 certificates, through OpenSSL's X509 API.
package enum X509Certificate {
  /// Whether `bytes` are exactly one DER-encoded X.509 certificate that OpenSSL parses: trailing
  /// bytes after the certificate make them something else.
  package static func isSingleDER(_ bytes: [UInt8]) -> Bool {
    guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return false }
    return bytes.withUnsafeBufferPointer { buffer in
      guard let start = buffer.baseAddress else { return false }
      var cursor: UnsafePointer<UInt8>? = start
      guard let certificate = d2i_X509(nil, &cursor, buffer.count) else {
        LibcryptoErrorQueue.clear()
        return false
      }
      X509_free(certificate)
      return cursor.map { $0 - start } == buffer.count
    }
  }
}
