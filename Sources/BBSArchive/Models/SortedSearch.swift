/// Where a value goes in ascending integers: the first place whose value
/// is `value` or more (`count` when none is), by halving.
extension Array where Element == Int {
    func lowerBound(_ value: Int) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
