extension Duration {
    /// The duration in seconds, fractions included (a wait as a log or a
    /// wall-clock time takes it).
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
