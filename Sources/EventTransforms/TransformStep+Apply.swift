import JSONCore

/// Running the declarative steps on an event.
extension TransformStep {
    /// What runs this step on one event.
    typealias Runner = (inout EventDocument) throws(StepFailure) -> StepEffect

    /// This step as a function of the event, its settings captured: running it borrows them
    /// from the closure's context, where switching over the step for every event would copy
    /// the step (and retain its paths' storage) each time. A `jq` step has none: it needs its
    /// compiled program (``JQProgram``).
    func runner() -> Runner? {
        switch self {
        case .rename(let from, let to):
            return { (document) throws(StepFailure) in try Self.rename(from, to, &document) }
        case .set(let path, let value, let ifAbsent):
            return { (document) throws(StepFailure) in try Self.set(path, value, ifAbsent, &document) }
        case .delete(let paths):
            return { (document) throws(StepFailure) in Self.delete(paths, &document) }
        case .mapEvents(let map):
            return { (document) throws(StepFailure) in Self.mapEvent(map, &document) }
        case .keep(let condition):
            return { (document) throws(StepFailure) in condition.matches(&document) ? .unchanged : .drop }
        case .drop(let condition):
            return { (document) throws(StepFailure) in condition.matches(&document) ? .drop : .unchanged }
        case .copyPropertiesToTraits(let selection):
            return { (document) throws(StepFailure) in try Self.copyToTraits(selection, &document) }
        case .jq:
            return nil
        }
    }

    /// `delete`: removes each path present.
    static func delete(_ paths: [FieldPath], _ document: inout EventDocument) -> StepEffect {
        var changed = false
        for path in paths where document.remove(path) != nil { changed = true }
        return changed ? .changed : .unchanged
    }

    /// `rename`: nothing to do when `from` is absent.
    static func rename(_ from: FieldPath, _ to: FieldPath, _ document: inout EventDocument) throws(StepFailure) -> StepEffect {
        guard let value = document.remove(from) else { return .unchanged }
        do {
            try document.write(value, at: to)
        } catch {
            throw StepFailure("cannot move '\(from)' to '\(to)': \(error)")
        }
        return .changed
    }

    /// `set`: unchanged when the same value is already there (or, with `if_absent`, any value).
    static func set(_ path: FieldPath, _ value: JSONValue, _ ifAbsent: Bool, _ document: inout EventDocument) throws(StepFailure) -> StepEffect {
        if ifAbsent {
            if document.contains(path) { return .unchanged }
        } else if let existing = document.value(at: path), existing == value {
            return .unchanged
        }
        do {
            try document.write(.tree(value), at: path)
        } catch {
            throw StepFailure("cannot set '\(path)': \(error)")
        }
        return .changed
    }

    /// `map_events`: renames the `event` of a track event whose name is mapped.
    static func mapEvent(_ map: EventNameMap, _ document: inout EventDocument) -> StepEffect {
        guard document.withString(SegmentKeys.type, { $0.elementsEqual("track".utf8) }) == true else { return .unchanged }
        let renamed: String?? = document.withString(SegmentKeys.event) { old in
            guard let new = map.newName(for: old), !new.utf8.elementsEqual(old) else { return nil }
            return new
        }
        guard case .some(.some(let name)) = renamed else { return .unchanged }
        // `event` is a top-level key: the write cannot meet a non-object.
        try? document.write(.tree(.string(name)), at: SegmentKeys.eventPath)
        return .changed
    }

    /// `copy_properties_to_traits`: for identify events, copies the selected members of an
    /// object `properties` into `traits` (made when absent or null) where `traits` lacks them.
    static func copyToTraits(_ selection: TraitSelection, _ document: inout EventDocument) throws(StepFailure) -> StepEffect {
        guard document.withString(SegmentKeys.type, { $0.elementsEqual("identify".utf8) }) == true,
            case .object(let properties)? = document.value(at: SegmentKeys.properties)
        else { return .unchanged }
        var traits: JSONObject
        switch document.value(at: SegmentKeys.traits) {
        case nil, .null?: traits = JSONObject()
        case .object(let object)?: traits = object
        case let other?: throw StepFailure("cannot copy properties to traits: 'traits' is \(PathConflict.kindName(other)), not an object")
        }
        let keys: [String]
        switch selection {
        case .all: keys = properties.keys
        case .keys(let selected): keys = selected
        }
        var copied = false
        for key in keys where traits[key] == nil {
            guard let value = properties[key] else { continue }
            traits[key] = value
            copied = true
        }
        guard copied else { return .unchanged }
        try? document.write(.tree(.object(traits)), at: SegmentKeys.traits)
        return .changed
    }
}
