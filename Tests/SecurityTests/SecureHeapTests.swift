import Testing

/// Key material that lives as long as a store is open is kept in OpenSSL's secure heap when the
/// process enabled it, as keychaind does. The heap is process-wide and small, so a helper process
/// enables it rather than the test process.
@Suite struct SecureHeapTests {
  @Test func aPreparedHMACKeyLivesInTheSecureHeapAndLeavesItWhenFreed() throws {
    // Its SHA-256 states are as good as the key: "before N prepared N freed N", bytes in use.
    let (status, lines) = try FullDisk.runHelper(["secure-heap-hmac"])
    #expect(status == 0, "\(lines)")
    let words = lines.joined(separator: " ").split(separator: " ")
    let numbers = stride(from: 1, to: words.count, by: 2).compactMap { Int(words[$0]) }
    try #require(numbers.count == 3, "\(lines)")
    // Two SHA-256 states of 112 bytes each, in the secure heap's power-of-two blocks.
    #expect(numbers[1] - numbers[0] >= 224, "\(lines)")
    #expect(numbers[2] == numbers[0], "\(lines)")
  }
}
