import JSONCore

/// The privacy members the client writes into a prepared event's `context`.
package enum EventPrivacy {
    /// Sets `context.consent` (unless the event carries its own) and `context.traits` (the
    /// current user's traits, unless the event carries its own), and removes
    /// `context.device.advertisingId` when ATT does not allow it.
    package static func decorate(_ event: inout Event, consent: Consent?, traits: JSONObject?, advertisingIdAllowed: Bool) {
        guard consent != nil || traits != nil || !advertisingIdAllowed else { return }
        var context = event.context ?? JSONObject()
        if let consent, context["consent"] == nil { context["consent"] = .object(consent.contextValue) }
        if let traits, !traits.isEmpty, context["traits"] == nil { context["traits"] = .object(traits) }
        if !advertisingIdAllowed, var device = context["device"]?.objectValue, device["advertisingId"] != nil {
            device["advertisingId"] = nil
            context["device"] = device.isEmpty ? nil : .object(device)
        }
        event.context = context
    }

    /// Adds `context.device.advertisingId` when the event has none (a held event released after
    /// ATT was authorized).
    package static func addAdvertisingIdIfMissing(_ id: String, to event: inout Event) {
        var context = event.context ?? JSONObject()
        var device = context["device"]?.objectValue ?? JSONObject()
        guard device["advertisingId"] == nil else { return }
        device["advertisingId"] = .string(id)
        context["device"] = .object(device)
        event.context = context
    }
}
