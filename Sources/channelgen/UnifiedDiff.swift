/// A unified diff (`diff -u` format, 3 lines of context).
///
/// Linear in the common prefix and suffix, then Myers' O((N+M)·D) search on what is left, for at
/// most `maximumEdits` edits; a larger change shows the differing middle as replaced. So a
/// regenerated file of any size is compared in O(N·maximumEdits) time and memory.
enum UnifiedDiff {
    static let maximumEdits = 1_000

    enum Kind { case same, removed, added }

    static func render(old: String, new: String, oldName: String, newName: String, context: Int = 3) -> String {
        let a = lines(old), b = lines(new)
        let script = editScript(a, b)
        var output = "--- \(oldName)\n+++ \(newName)\n"
        var index = 0
        while index < script.count {
            guard script[index].kind != .same else { index += 1; continue }
            // Grow the hunk while changes are within 2 × context of each other.
            let start = max(0, index - context)
            var end = index
            var lastChange = index
            while end < script.count && end - lastChange <= 2 * context {
                if script[end].kind != .same { lastChange = end }
                end += 1
            }
            end = min(script.count, lastChange + context + 1)
            let hunk = script[start..<end]
            let aCount = hunk.filter { $0.kind != .added }.count
            let bCount = hunk.filter { $0.kind != .removed }.count
            let aStart = aCount == 0 ? hunk.first!.a : hunk.first!.a + 1
            let bStart = bCount == 0 ? hunk.first!.b : hunk.first!.b + 1
            output += "@@ -\(aStart),\(aCount) +\(bStart),\(bCount) @@\n"
            for line in hunk {
                switch line.kind {
                case .same: output += " " + line.text + "\n"
                case .removed: output += "-" + line.text + "\n"
                case .added: output += "+" + line.text + "\n"
                }
            }
            index = end
        }
        return output
    }

    /// Each line with its kind and its 0-based line numbers in `a` and `b`.
    static func editScript(_ a: [String], _ b: [String]) -> [(kind: Kind, text: String, a: Int, b: Int)] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let middleA = Array(a[prefix..<(a.count - suffix)]), middleB = Array(b[prefix..<(b.count - suffix)])

        var script: [(kind: Kind, text: String, a: Int, b: Int)] = []
        script.reserveCapacity(a.count + b.count)
        for index in 0..<prefix { script.append((.same, a[index], index, index)) }
        let middle = myers(middleA, middleB) ?? (Array(repeating: Kind.removed, count: middleA.count) + Array(repeating: Kind.added, count: middleB.count))
        var i = prefix, j = prefix
        for kind in middle {
            switch kind {
            case .same: script.append((.same, a[i], i, j)); i += 1; j += 1
            case .removed: script.append((.removed, a[i], i, j)); i += 1
            case .added: script.append((.added, b[j], i, j)); j += 1
            }
        }
        for offset in 0..<suffix { script.append((.same, a[i + offset], i + offset, j + offset)) }
        return script
    }

    /// Myers' shortest edit script, or `nil` when it needs more than `maximumEdits` edits.
    private static func myers(_ a: [String], _ b: [String]) -> [Kind]? {
        let n = a.count, m = b.count
        if n == 0 || m == 0 { return Array(repeating: .removed, count: n) + Array(repeating: .added, count: m) }
        // Compare line identities as integers.
        var ids: [String: Int] = [:]
        func id(_ line: String) -> Int {
            if let known = ids[line] { return known }
            ids[line] = ids.count
            return ids.count - 1
        }
        let x = a.map(id), y = b.map(id)
        let limit = min(n + m, maximumEdits)
        let offset = limit + 1
        var v = [Int](repeating: 0, count: 2 * limit + 3)
        var trace: [[Int]] = []
        for d in 0...limit {
            trace.append(v)
            for k in stride(from: -d, through: d, by: 2) {
                var col = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1
                var row = col - k
                while col < n, row < m, x[col] == y[row] { col += 1; row += 1 }
                v[offset + k] = col
                if col >= n && row >= m { return backtrack(trace, d: d, n: n, m: m, offset: offset) }
            }
        }
        return nil
    }

    private static func backtrack(_ trace: [[Int]], d: Int, n: Int, m: Int, offset: Int) -> [Kind] {
        var kinds: [Kind] = []
        var col = n, row = m
        for step in stride(from: d, through: 1, by: -1) {
            let v = trace[step]
            let k = col - row
            let previousK = (k == -step || (k != step && v[offset + k - 1] < v[offset + k + 1])) ? k + 1 : k - 1
            let previousCol = v[offset + previousK], previousRow = previousCol - previousK
            while col > previousCol && row > previousRow { kinds.append(.same); col -= 1; row -= 1 }
            kinds.append(col == previousCol ? .added : .removed)
            col = previousCol
            row = previousRow
        }
        while col > 0 && row > 0 { kinds.append(.same); col -= 1; row -= 1 }
        return kinds.reversed()
    }

    private static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
