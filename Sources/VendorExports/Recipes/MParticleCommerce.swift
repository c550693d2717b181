import JSONCore

/// mParticle `commerce_event`s as Segment's e-commerce spec events: the name from the product
/// action, promotion action or impressions, and their fields under the spec's names.
enum MParticleCommerce {
    /// Plans the event (its `data` members sorted in `found` by ``MParticleEvent``'s table),
    /// adding to the `properties` object being assembled.
    static func plan(_ record: Record, index: Int, _ found: Found, _ work: inout Workspace) throws(RecipeFailure) {
        let buf = record.bytes
        var name: Piece = .absent
        for (i, m) in found.members.enumerated() where m.value.kind != .null && found.fieldOfMember[i] < 0 {
            if RecordText.keyIs(buf, m, "product_action") {
                name = productAction(record, m.value, &work)
            } else if RecordText.keyIs(buf, m, "promotion_action") {
                name = promotionAction(record, m.value, &work)
            } else if RecordText.keyIs(buf, m, "product_impressions") {
                impressions(record, m.value, &work)
                name = .text("Product List Viewed")
            } else if RecordText.keyIs(buf, m, "currency_code") {
                work.add("currency", .json(m.value.range))
            } else {
                work.addVerbatim(m)
            }
        }
        guard name.isPresent else {
            throw .missing(.mparticle, "events[\(index)].data.product_action")
        }
        work.plan.event = name
    }

    /// The Segment event of a product action, and its fields added to the properties.
    private static func productAction(_ record: Record, _ value: ValueRef, _ work: inout Workspace) -> Piece {
        let buf = record.bytes
        guard value.kind == .object else { return .absent }
        var name: Piece = .absent
        var action = ObjectWalker(buf, openingAt: value.range.lowerBound)
        while let pending = action.next() {
            if pending.kind == .array, RecordText.keyIs(buf, pending.member(endingAt: pending.valueStart), "products") {
                // The products are read as they are walked: not skipped first.
                let (products, end) = self.products(record, openingAt: pending.valueStart, rename: "product_id", &work)
                action.resume(at: end)
                work.add("products", products)
                continue
            }
            let m = action.skip()
            guard m.value.kind != .null else { continue }
            if RecordText.keyIs(buf, m, "action") {
                name = actionName(buf, m.value.range) ?? .json(m.value.range)
            } else if let renamed = renamedActionField(buf, m) {
                work.add(renamed, .json(m.value.range))
            } else {
                work.addVerbatim(m)
            }
        }
        return name
    }

    /// The spec's names of the product action's fields it renames.
    private static let renamedFields = KeyMap<StaticString>([
        ("transaction_id", "order_id"), ("total_amount", "total"), ("tax_amount", "tax"), ("shipping_amount", "shipping"),
        ("coupon_code", "coupon"), ("checkout_step", "step"),
    ])

    /// The spec's name of a product action's field, for those it renames.
    private static func renamedActionField(_ buf: UnsafeBufferPointer<UInt8>, _ m: MemberRef) -> StaticString? {
        renamedFields[buf, m]
    }

    /// Segment's e-commerce event for an mParticle product action.
    private static func actionName(_ buf: UnsafeBufferPointer<UInt8>, _ action: Range<Int>) -> Piece? {
        let names: [(StaticString, StaticString)] = [
            ("add_to_cart", "Product Added"), ("remove_from_cart", "Product Removed"), ("checkout", "Checkout Started"),
            ("checkout_option", "Checkout Step Completed"), ("click", "Product Clicked"), ("view_detail", "Product Viewed"),
            ("purchase", "Order Completed"), ("refund", "Order Refunded"), ("add_to_wishlist", "Product Added to Wishlist"),
            ("remove_from_wish_list", "Product Removed from Wishlist"), ("remove_from_wishlist", "Product Removed from Wishlist"),
        ]
        for (action_, name) in names where RecordText.equals(buf, action, action_) { return .text(name) }
        return nil
    }

    /// The Segment event of a promotion action, its promotion's fields added to the properties
    /// (or all its promotions as `promotions` when it has several).
    private static func promotionAction(_ record: Record, _ value: ValueRef, _ work: inout Workspace) -> Piece {
        let buf = record.bytes
        guard Workspace.skim(record, value, into: &work.inner2) else { return .absent }
        var name: Piece = .absent
        for m in work.inner2.members where m.kind != .null {
            let key = m.key.lowerBound - 1..<m.key.upperBound + 1
            if RecordText.equals(buf, key, "action") {
                if RecordText.equals(buf, m.value, "view") {
                    name = .text("Promotion Viewed")
                } else if RecordText.equals(buf, m.value, "click") {
                    name = .text("Promotion Clicked")
                } else {
                    name = .json(m.value)
                }
            } else if RecordText.equals(buf, key, "promotions"), m.kind == .array {
                let list = ValueRef(m)
                if ArrayItems(buf, list.range).reduce(0, { n, _ in n + 1 }) == 1, let only = ArrayItems(buf, list.range).first(where: { _ in true }),
                    only.kind == .object
                {
                    renamed(record, only, rename: "promotion_id", &work)
                } else {
                    work.add("promotions", products(record, list, rename: "promotion_id", &work))
                }
            }
        }
        return name
    }

    /// `product_impressions` as a product list: `list_id` from the first impression's list, and
    /// every impression's products.
    private static func impressions(_ record: Record, _ value: ValueRef, _ work: inout Workspace) {
        guard value.kind == .array else { return }
        let buf = record.bytes
        var listId: Piece = .absent
        var lists: [ValueRef] = []
        for item in ArrayItems(buf, value.range) where item.kind == .object {
            guard Workspace.skim(record, item, into: &work.inner2) else { continue }
            if !listId.isPresent, let list = work.inner2.member("product_impression_list", in: buf) {
                listId = .scalar(ValueRef(list))
            }
            if let products = work.inner2.member("products", in: buf), products.kind == .array { lists.append(ValueRef(products)) }
        }
        work.add("list_id", listId)
        let mark = work.openArray()
        for list in lists {
            for item in ArrayItems(buf, list.range) where item.kind == .object {
                let object = work.open()
                renamed(record, item, rename: "product_id", &work)
                work.addItem(work.close(object))
            }
        }
        work.add("products", work.closeArray(mark))
    }

    /// The objects of the array `value`, each without nulls and with `id` renamed to `idName`
    /// and `coupon_code` to `coupon`.
    private static func products(_ record: Record, _ value: ValueRef, rename idName: StaticString, _ work: inout Workspace) -> Piece {
        guard value.kind == .array else { return .absent }
        return products(record, openingAt: value.range.lowerBound, rename: idName, &work).0
    }

    /// ``products(_:_:rename:_:)`` of the array whose `[` is at `start`, and one past its `]`.
    private static func products(_ record: Record, openingAt start: Int, rename idName: StaticString, _ work: inout Workspace) -> (Piece, Int) {
        let mark = work.openArray()
        var items = ArrayWalker(record.bytes, openingAt: start)
        while let item = items.next() {
            guard item.kind == .object else {
                _ = items.skip()
                continue
            }
            let object = work.open()
            items.resume(at: renamed(record, openingAt: item.start, rename: idName, &work))
            work.addItem(work.close(object))
        }
        return (work.closeArray(mark), items.end!)
    }

    /// Adds the members of the object `item` to the object being assembled, without nulls, `id`
    /// renamed to `idName` and `coupon_code` to `coupon`.
    private static func renamed(_ record: Record, _ item: ValueRef, rename idName: StaticString, _ work: inout Workspace) {
        _ = renamed(record, openingAt: item.range.lowerBound, rename: idName, &work)
    }

    /// ``renamed(_:_:rename:_:)`` of the object whose `{` is at `start`; one past its `}`.
    private static func renamed(_ record: Record, openingAt start: Int, rename idName: StaticString, _ work: inout Workspace) -> Int {
        var members = ObjectMembers(record.bytes, openingAt: start)
        while let m = members.next() {
            guard m.value.kind != .null else { continue }
            if RecordText.keyIs(record.bytes, m, "id") {
                work.add(.text(idName), .json(m.value.range))
            } else if RecordText.keyIs(record.bytes, m, "coupon_code") {
                work.add("coupon", .json(m.value.range))
            } else {
                work.addVerbatim(m)
            }
        }
        return members.end!
    }
}
