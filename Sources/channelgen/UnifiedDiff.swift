/// A unified diff (`diff -u` format, 3 lines of context) built on the standard library's
/// `CollectionDifference`.
enum UnifiedDiff {
    static func render(old: String, new: String, oldName: String, newName: String, context: Int = 3) -> String {
        let a = lines(old), b = lines(new)
        let difference = b.difference(from: a)
        var removed = Set<Int>(), inserted = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        // The edit script: each line with its kind and its 0-based line numbers in `a` and `b`.
        enum Kind { case same, removed, added }
        var script: [(kind: Kind, text: String, a: Int, b: Int)] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, removed.contains(i) {
                script.append((.removed, a[i], i, j)); i += 1
            } else if j < b.count, inserted.contains(j) {
                script.append((.added, b[j], i, j)); j += 1
            } else {
                script.append((.same, a[i], i, j)); i += 1; j += 1
            }
        }
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

    private static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
