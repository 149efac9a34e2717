import Foundation

/// A value each thread keeps for itself, for caches that every call reads.
///
/// A cache behind one lock, or one that hands out a shared object, makes each call write memory
/// that every core shares (the lock word, a reference count), and that line moves between cores on
/// every call: on this VM a request-shape cache behind a `Mutex` took two reading threads from
/// 1.55x one thread's lookups to 1.38x (issue 34). A thread's own value is written by that thread
/// alone. Use it for a process-lifetime cache: a value that other threads set up stays until they
/// end, even after this object is gone.
package final class ThreadLocalValue<Value>: @unchecked Sendable {
  // @unchecked: the only state shared between threads is the pthread key; each thread's value is
  // reached through it by that thread alone.
  private final class Box {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  /// nil when the process has no key left (PTHREAD_KEYS_MAX): each call then starts from the
  /// initial value, which for a cache means computing again, never a wrong answer.
  private let key: pthread_key_t?
  private let initialValue: @Sendable () -> Value

  /// A slot whose value starts, in each thread, as `initialValue()`.
  package init(_ initialValue: @escaping @Sendable () -> Value) {
    var key = pthread_key_t()
    // A thread's value goes when the thread ends.
    let created = pthread_key_create(&key) { box in
      if let box { Unmanaged<AnyObject>.fromOpaque(box).release() }
    }
    self.key = created == 0 ? key : nil
    self.initialValue = initialValue
  }

  deinit {
    guard let key else { return }
    if let box = pthread_getspecific(key) { Unmanaged<AnyObject>.fromOpaque(box).release() }
    pthread_key_delete(key)
  }

  /// Runs `body` with the calling thread's value.
  package func withValue<Result>(_ body: (inout Value) -> Result) -> Result {
    guard let key else {
      var value = initialValue()
      return body(&value)
    }
    if let box = pthread_getspecific(key) {
      return body(&Unmanaged<Box>.fromOpaque(box).takeUnretainedValue().value)
    }
    let box = Box(initialValue())
    pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
    return body(&box.value)
  }
}
