extension Array {
    /// The elements cut, in order, into runs of at most `count` elements and, past each run's
    /// first element, at most `bytes` bytes by `length`: a statement or a batch whose size must
    /// not grow with its rows' sizes, while a row larger than `bytes` still goes, alone.
    func runs(count: Int = .max, bytes: Int, length: (Element) -> Int) -> [ArraySlice<Element>] {
        var runs: [ArraySlice<Element>] = []
        var start = startIndex
        var runBytes = 0
        for index in indices {
            let size = length(self[index])
            if index > start && (index - start >= count || runBytes + size > bytes) {
                runs.append(self[start..<index])
                start = index
                runBytes = 0
            }
            runBytes += size
        }
        if start < endIndex { runs.append(self[start...]) }
        return runs
    }
}
