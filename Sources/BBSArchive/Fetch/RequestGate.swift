/// Lets at most `width` requests be in flight at once, however many tasks
/// ask: the fetch's one `--connections` budget, shared by every board walk
/// and every thread of each. A request holds its place from before it
/// takes its slot in the rate limit until its answer is in, so requests
/// never queue inside the HTTP client after their slot (where several
/// could leave together, faster than the rate). Waiting tasks go in the
/// order they came; a cancelled one throws instead of waiting on.
actor RequestGate {
    private var free: Int
    private var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var cancelledEarly: Set<UInt64> = []
    private var nextID: UInt64 = 0

    init(width: Int) {
        free = max(1, width)
    }

    /// Waits for a place; every `enter` that returns is paired with one `leave`.
    func enter() async throws(CancellationError) {
        if Task.isCancelled { throw CancellationError() }
        if free > 0 {
            free -= 1
            return
        }
        let id = nextID
        nextID += 1
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                if cancelledEarly.remove(id) != nil {
                    continuation.resume(returning: false)
                } else {
                    waiting.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
        if !granted { throw CancellationError() }
    }

    /// Gives the place to the next waiting task, or back to the pool.
    func leave() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().continuation.resume(returning: true)
        }
    }

    private func cancel(_ id: UInt64) {
        if let index = waiting.firstIndex(where: { $0.id == id }) {
            waiting.remove(at: index).continuation.resume(returning: false)
        } else {
            // Cancelled before it started waiting, or already let in.
            cancelledEarly.insert(id)
        }
    }
}
