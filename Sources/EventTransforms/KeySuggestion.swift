/// "Did you mean" suggestions for misspelled keys and names: the one rule of the whole
/// configuration (the loader's keys and values, and a `transform:` section's steps), the
/// closest candidate within a third of the word's length.
package enum KeySuggestion {
    /// The closest candidate to `word` within a small edit distance, if any.
    package static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(2, word.count / 3)
        var best: (candidate: String, distance: Int)?
        for c in candidates {
            let d = distance(word.lowercased(), c)
            if d <= limit, best == nil || d < best!.distance { best = (c, d) }
        }
        return best?.candidate
    }

    /// Levenshtein distance between two strings (by Unicode scalars).
    package static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var prev = Array(0...y.count)
        var cur = prev
        for i in 1...x.count {
            cur[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            }
            swap(&prev, &cur)
        }
        return prev[y.count]
    }
}
