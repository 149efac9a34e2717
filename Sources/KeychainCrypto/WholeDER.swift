internal import COpenSSL

/// Decodes with one of OpenSSL's `d2i_*` functions, all of the bytes or nothing: an object
/// followed by anything else is not the object (trailing bytes are where smuggled data hides).
package enum WholeDER {
  /// The object `decode` reads from the whole of `bytes`, or nil (the error queue emptied, and a
  /// partly read object freed with `free`). The caller frees what it gets.
  package static func decode(
    _ bytes: [UInt8], _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
    free: (OpaquePointer) -> Void
  ) -> OpaquePointer? {
    guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return nil }
    let object: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
      var cursor = buffer.baseAddress
      guard let object = decode(&cursor, buffer.count) else { return nil }
      guard cursor.map({ $0 - buffer.baseAddress! }) == buffer.count else {
        free(object)
        return nil
      }
      return object
    }
    if object == nil { LibcryptoErrorQueue.clear() }
    return object
  }
}
