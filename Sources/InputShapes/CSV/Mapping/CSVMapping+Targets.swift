extension CSVMapping {
    /// Checks that no two members set the same place: no target is given twice or lies inside
    /// another (`context` and `context.device.id`), and with ``UnmappedColumns/properties`` no
    /// target sets `properties` whole.
    /// - Parameter key: where the mapping sits in the configuration, for errors.
    /// - Throws: ``MappingConfigError`` naming the later of two clashing targets.
    package func checkTargets(key: String = "mapping") throws(MappingConfigError) {
        var seen: [(path: [String], key: String)] = []
        let targets =
            constants.map { (path: $0.target.components, key: "\(key).constants[\"\($0.target)\"]") }
            + fields.map { (path: $0.target.components, key: "\(key).fields[\"\($0.target)\"]") }
        for target in targets {
            for earlier in seen where earlier.path.starts(with: target.path) || target.path.starts(with: earlier.path) {
                throw MappingConfigError(key: target.key, "clashes with \(earlier.key): both set \(Self.shorter(earlier.path, target.path))")
            }
            if unmappedColumns == .properties, target.path == ["properties"] {
                throw MappingConfigError(
                    key: target.key, "sets properties whole, but unmapped_columns: properties adds members to it")
            }
            seen.append(target)
        }
    }

    /// The dotted form of the shorter of two paths (the place both set).
    private static func shorter(_ a: [String], _ b: [String]) -> String {
        (a.count <= b.count ? a : b).joined(separator: ".")
    }
}
