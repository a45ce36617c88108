import Foundation

/// What the pipeline tells whoever watches it: the CLI draws a live line on
/// a terminal, plain lines in a log, or JSON lines for machines.
package enum ProgressEvent: Sendable, Equatable {
    /// A sentence worth telling the user.
    case note(String)
    /// How far a stage is: `list pages`, `threads`, `attachments`.
    case stage(name: String, done: Int, total: Int?, failed: Int)
    /// A request failed and will be tried again after `wait`.
    case retry(url: String, reason: String, wait: Duration, attempt: Int, of: Int)
    /// A page or file failed for this run; the next run tries it again.
    case failure(url: String, reason: String)
}

/// Receives progress events from any task.
package typealias ProgressSink = @Sendable (ProgressEvent) -> Void
