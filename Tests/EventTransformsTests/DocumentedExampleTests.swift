import EventTransforms
import JSONCore
import Testing

/// The migration example of docs/transforms.md, as its YAML reads (converted to JSON).
@Suite("documented example")
struct DocumentedExampleTests {
    static let section = #"""
        [{"rename": {"from": "distinct_id", "to": "userId"}},
         {"rename": {"from": "properties.$current_url", "to": "context.page.url"}},
         {"rename": {"from": "properties.$os", "to": "context.os.name"}},
         {"delete": ["properties.token", "properties.mp_lib", "properties.$lib_version"]},
         {"set": {"path": "context.library.name", "value": "mixpanel-migration", "if_absent": true}},
         {"drop": {"event": ["Test Event", "QA ping"]}},
         {"drop": {"field": "properties.is_test", "equals": true}},
         {"keep": {"type": ["track", "identify", "page"]}},
         {"map_events": {"Sign Up": "Signed Up", "purchase": "Order Completed"}},
         {"copy_properties_to_traits": ["email", "name"]},
         {"jq": "if .properties.country == \"UK\" then .properties.country = \"GB\" else . end"}]
        """#

    @Test(arguments: [
        (
            #"{"type":"track","event":"purchase","distinct_id":"u1","properties":{"$current_url":"https://x/","$os":"Linux","token":"t","mp_lib":"web","price":9.90,"country":"UK"}}"#,
            #"{"type":"track","event":"Order Completed","properties":{"price":9.90,"country":"GB"},"userId":"u1","context":{"page":{"url":"https://x/"},"os":{"name":"Linux"},"library":{"name":"mixpanel-migration"}}}"#
        ),
        (
            #"{"type":"identify","distinct_id":"u2","properties":{"email":"a@b","is_test":false},"context":{"library":{"name":"sdk"}}}"#,
            #"{"type":"identify","properties":{"email":"a@b","is_test":false},"context":{"library":{"name":"sdk"}},"userId":"u2","traits":{"email":"a@b"}}"#
        ),
        (#"{"type":"track","event":"Test Event","distinct_id":"u3"}"#, ""),
        (#"{"type":"track","event":"Sign Up","properties":{"is_test":true}}"#, ""),
        (#"{"type":"screen","name":"Home"}"#, ""),
    ])
    func migratesMixpanelStyleEvents(event: String, expected: String) throws {
        let r = try run(Self.section, event)
        #expect(r.text == expected, "got \(r.text)")
    }
}
