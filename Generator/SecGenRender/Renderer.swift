import Foundation
import SecGenModel
import Stencil

/// Stage 3: renders the model through the Stencil templates of a directory.
public enum Renderer {
  /// One generated file.
  public struct Output: Equatable, Sendable {
    public var fileName: String
    public var contents: String
  }
}
