#!/usr/bin/env python3
"""Writes a deterministic NDJSON file of Segment-spec events for the replay benchmark.

Usage: gen_events.py COUNT OUT [--seed N] [--mix uniform|realistic] [--ids short|uuid] [--context small|sdk] [--by-device]

Every line is one event of one of the six types (track, identify, page, screen, group, alias),
about 250 bytes, with unicode text, nested properties and an ISO-8601 `timestamp`. About 10% of
the lines carry only a `userId` (no messageId, no anonymousId), as exported data often does.

--mix uniform (the default) draws the types as 3/8 track and 1/8 each of the others, so that
every rule is exercised often; --mix realistic draws them as a product's event stream usually
is: 70% track, 15% page, 8% screen, 5% identify, 1.5% group, 0.5% alias.

--ids short (the default) writes ids such as `anon-004711` and `user-000042`; --ids uuid writes
the same ids as UUIDs, the way the SDKs make them: anonymousIds (and previousIds) in uppercase, as
the iOS SDK's `UUID().uuidString`, userIds in lowercase, as Android's `UUID.toString()`. The
events are otherwise the same, drawn from the same random sequence.

--context small (the default) writes a context of one `locale`; --context sdk writes the context
a mobile SDK sends with every event (app, device, library, os, screen, network, locale, timezone
and provider data, about 500 bytes), so lines are about 750 bytes, as SDK-written queues are.

--by-device writes the same events grouped by device (the context's device id, which is the
anonymousId; lines without one form one group), each device's events in the order they were drawn
and with its first event's locale, as a device's offline queue holds them: a device's events then
carry the same context, byte for byte. Use it with --context sdk.
"""
import argparse
import json
import os
import random
import uuid

TYPES = ["track", "track", "track", "identify", "page", "screen", "group", "alias"]
EVENTS = ["Order Completed", "Product Viewed", "Signed Up", "Cart Updated", "Vídeo Reproduzido", "商品を表示", "Checkout Started"]
PAGES = ["Home", "Pricing", "Über uns", "Docs", "Blog — Ñandú", "カート"]
CATEGORIES = ["Marketing", "Docs", "Shop"]
CITIES = ["Zürich", "São Paulo", "東京", "Kraków", "Reykjavík", "New York"]
PLANS = ["free", "pro", "enterprise"]
CURRENCIES = ["USD", "EUR", "JPY", "BRL"]


def timestamp(rng):
    return "2026-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
        rng.randint(1, 10), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999))


def properties(rng):
    props = {
        "product": {"sku": "SKU-%05d" % rng.randint(0, 99999), "price": round(rng.uniform(1, 500), 2), "qty": rng.randint(1, 9)},
        "currency": rng.choice(CURRENCIES),
    }
    if rng.random() < 0.5:
        props["tags"] = rng.sample(["new", "sale", "gift", "🎁", "β"], rng.randint(1, 3))
    if rng.random() < 0.3:
        props["coupon"] = None
    return props


REALISTIC = (["track", "page", "screen", "identify", "group", "alias"], [70, 15, 8, 5, 1.5, 0.5])


def short_ids(kind, number):
    return "%s-%06d" % (kind, number)


def uuid_ids(kind, number):
    """A fixed version-4 UUID for each (kind, number): uppercase for anonymousIds, lowercase else."""
    bits = (number * 0x9E3779B97F4A7C15 + (0x51ED if kind == "anon" else 0x7A11)) * 0xD6E8FEB86659FD93 % (1 << 128)
    text = str(uuid.UUID(int=bits, version=4))
    return text.upper() if kind == "anon" else text


SDK_CONTEXT = {
    "app": {"name": "Shop", "version": "3.1", "build": "310", "namespace": "com.example.shop"},
    "device": {"manufacturer": "Apple", "model": "iPhone 15 Pro", "type": "phone"},
    "library": {"name": "metarouter-ios-sdk", "version": "1.2.1"},
    "os": {"name": "iOS", "version": "18.1"},
    "screen": {"density": 3, "width": 1179, "height": 2556},
    "network": {"wifi": True},
    "timezone": "America/Denver",
    "additional": {},
    "providers": {"metarouter": {"sessionID": "1777886100000", "sessionCount": 3}},
}


def sdk_context(locale, device_id):
    """The context of an iOS SDK event, its device id the anonymousId, as the SDK writes it."""
    context = dict(SDK_CONTEXT, device=dict(SDK_CONTEXT["device"], id=device_id), locale=locale)
    return {k: context[k] for k in ["app", "device", "library", "os", "screen", "network", "locale", "timezone", "additional", "providers"]}


def event(rng, n, mix="uniform", ident=short_ids, sdk=False):
    kind = rng.choice(TYPES) if mix == "uniform" else rng.choices(REALISTIC[0], weights=REALISTIC[1])[0]
    user = ident("user", rng.randint(0, 49999))
    only_user_id = rng.random() < 0.10 or kind == "alias"
    e = {"type": kind}
    if not only_user_id:
        e["messageId"] = "msg-%08d-%04x" % (n, rng.randint(0, 0xFFFF))
        e["anonymousId"] = ident("anon", rng.randint(0, 99999))
    if kind != "alias" and (only_user_id or rng.random() < 0.7):
        e["userId"] = user
    e["timestamp"] = timestamp(rng)
    if kind == "track":
        e["event"] = rng.choice(EVENTS)
        e["properties"] = properties(rng)
    elif kind == "identify":
        e["traits"] = {"email": "%s@example.com" % user, "name": rng.choice(["Zoë", "José", "李雷", "Ana"]),
                       "address": {"city": rng.choice(CITIES)}, "plan": rng.choice(PLANS)}
    elif kind in ("page", "screen"):
        e["name"] = rng.choice(PAGES)
        if kind == "page":
            e["category"] = rng.choice(CATEGORIES)
        e["properties"] = {"path": "/p/%d" % rng.randint(0, 999), "referrer": "https://example.com/ü?q=%d" % rng.randint(0, 99),
                           "size": {"w": rng.choice([375, 1280]), "h": rng.choice([812, 720])}}
    elif kind == "group":
        e["groupId"] = "group-%04d" % rng.randint(0, 999)
        e["traits"] = {"name": rng.choice(["Acme Ltd", "Ωmega GmbH", "株式会社"]), "employees": rng.randint(1, 5000),
                       "industry": rng.choice(["retail", "software"])}
    else:  # alias: previousId -> userId
        e["previousId"] = ident("anon", rng.randint(0, 99999))
        e["userId"] = user
    locale = rng.choice(["en-US", "de-CH", "ja-JP", "pt-BR"])
    e["context"] = sdk_context(locale, e.get("anonymousId", "none")) if sdk else {"locale": locale}
    return e


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("count", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--mix", choices=["uniform", "realistic"], default="uniform")
    ap.add_argument("--ids", choices=["short", "uuid"], default="short")
    ap.add_argument("--context", choices=["small", "sdk"], default="small")
    ap.add_argument("--by-device", action="store_true")
    args = ap.parse_args()
    ident = uuid_ids if args.ids == "uuid" else short_ids
    if args.by_device:
        write_by_device(args, ident)
        return
    rng = random.Random(args.seed)
    with open(args.out, "w", encoding="utf-8") as f:
        for n in range(args.count):
            f.write(json.dumps(event(rng, n, args.mix, ident, args.context == "sdk"), ensure_ascii=False, separators=(",", ":")))
            f.write("\n")


def device_of(e):
    return e.get("anonymousId", "none")


def write_by_device(args, ident):
    """--by-device: the events drawn as without it, each device's locale its first event's, written
    device by device (in the order devices first appear) through a temporary file."""
    sdk = args.context == "sdk"
    locales = {}
    rng = random.Random(args.seed)
    for n in range(args.count):
        e = event(rng, n, args.mix, ident, sdk)
        locales.setdefault(device_of(e), e["context"]["locale"])
    lines = {}  # device -> [(offset, length)] in the temporary file
    rng = random.Random(args.seed)
    tmp = args.out + ".unordered"
    with open(tmp, "wb") as f:
        for n in range(args.count):
            e = event(rng, n, args.mix, ident, sdk)
            device = device_of(e)
            e["context"] = sdk_context(locales[device], device) if sdk else {"locale": locales[device]}
            line = (json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
            lines.setdefault(device, []).append((f.tell(), len(line)))
            f.write(line)
    with open(tmp, "rb") as src, open(args.out, "wb") as out:
        for spans in lines.values():
            for offset, length in spans:
                src.seek(offset)
                out.write(src.read(length))
    os.remove(tmp)


if __name__ == "__main__":
    main()
