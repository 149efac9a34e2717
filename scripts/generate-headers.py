#!/usr/bin/env python3
"""Writes the Security headers that secgen reads (Sources/Keychain/Headers) from the specification.

The headers follow shared/spec/header-conventions.md: HeaderDoc `@enum` groups of
`extern const CFStringRef` constants, a class-to-attributes table, value types in `@constant`
text, `(read-only)` markers, the SecItem prototypes, and SecBase's `CF_ENUM(OSStatus)` with a
trailing comment per code. The wording is this project's own; the data (names, groups, classes,
types, codes) comes from Spec/security-constants.json, so headers and runtime cannot drift apart.
"""
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPEC = json.loads((ROOT / "Spec" / "security-constants.json").read_text())
OUT = ROOT / "Sources" / "Keychain" / "Headers"
AVAILABLE = "API_AVAILABLE(macos(10.6), ios(2.0))"

CLASS_CONSTANTS = {
    "genp": "kSecClassGenericPassword", "inet": "kSecClassInternetPassword", "cert": "kSecClassCertificate",
    "keys": "kSecClassKey", "idnt": "kSecClassIdentity",
}

# Which @enum group each JSON group goes to, and the key a value group belongs to.
VALUE_GROUP_KEYS = {
    "value: accessible": "kSecAttrAccessible", "value: protocol": "kSecAttrProtocol",
    "value: authType": "kSecAttrAuthenticationType", "value: keyClass": "kSecAttrKeyClass",
    "value: keyType": "kSecAttrKeyType", "value: keySize": "kSecAttrKeySizeInBits", "value: prf": "kSecAttrPRF",
    "value: tokenID": "kSecAttrTokenID", "value: accessGroup": "kSecAttrAccessGroup",
    "value: synchronizable": "kSecAttrSynchronizable", "value: sharingGroup": "kSecAttrSharingGroup",
    "value: matchLimit": "kSecMatchLimit", "value: authenticationUI": "kSecUseAuthenticationUI",
}
GROUP_TITLES = {
    "class": "Class Key Constant", "class value": "Class Value Constants", "attr": "Attribute Key Constants",
    "match": "Search Constants", "return": "Return Type Key Constants", "value": "Value Type Key Constants",
    "use": "Other Constants", "other": "Other Constants",
}
GROUP_DISCUSSIONS = {
    "Class Key Constant": "The key whose value says which class of item a dictionary describes.",
    "Class Value Constants": "The item classes: each names one kind of keychain item.",
    "Search Constants": "Keys that shape a search: how many results, and extra match conditions.",
    "Return Type Key Constants": "Keys whose CFBooleanRef value asks a call to return a kind of result.",
    "Value Type Key Constants": "Keys for an item's value: its secret data, a reference, or a persistent reference.",
    "Other Constants": "Keys that change how a call runs rather than what it matches.",
    "Attribute Key Constants": "Keys for item attributes. The table says which attributes each item class has.",
}


def cf_type(constant):
    """The value type phrase of an attribute's @constant text."""
    name, value_type = constant["name"], (constant.get("valueType") or "")
    for group, key in VALUE_GROUP_KEYS.items():
        if key == name and value_type.startswith("typed constant"):
            return f"one of the values listed in {key} Value Constants"
    if value_type.startswith("SecAccessControlRef"):
        return "SecAccessControlRef"
    if value_type.startswith("SecAccessRef"):
        return "SecAccessRef"
    for prefix, ref in (("CFBoolean", "CFBooleanRef"), ("CFNumber", "CFNumberRef"), ("CFDate", "CFDateRef"),
                        ("CFData", "CFDataRef"), ("CFString", "CFStringRef")):
        if value_type.startswith(prefix):
            return ref
    return "CFDataRef"  # the inet extra-data fields ("see notes") hold bytes


def words(name, prefix):
    stem = name[len(prefix):] if name.startswith(prefix) else name
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", stem)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return spaced.lower()


def read_only(constant):
    marker = str(constant.get("readOnly") or "")
    return marker.startswith(("read-only", "documented read-only", "system-managed", "system-computed"))


def attribute_text(constant):
    phrase = cf_type(constant)
    described = words(constant["name"], "kSecAttr")
    prefix = "(read-only) " if read_only(constant) else ""
    if phrase.startswith("one of"):
        return f"{prefix}A key whose value is the item's {described}, {phrase}."
    return f"{prefix}A key whose value is the item's {described}, a value of type {phrase}."


def constant_text(constant, group_key=None):
    name = constant["name"]
    if constant["group"] == "attr":
        return attribute_text(constant)
    if group_key:
        return f"The {words(name, group_key)} value of {group_key}."
    if constant["group"] == "class":
        return "A key whose value is the item's class, one of the values listed in Class Value Constants."
    if constant["group"] == "class value":
        return f"The class of {words(name, 'kSecClass')} items."
    if constant["group"] == "return":
        return f"A key whose CFBooleanRef value asks for the {words(name, 'kSecReturn')} of matching items."
    if constant["group"] == "match":
        return f"A search key: {words(name, 'kSecMatch')} ({constant.get('valueType')})."
    return f"A key: {words(name, 'kSec')} ({constant.get('valueType') or 'see the discussion'})."


def enum_block(title, discussion, entries, table=None):
    lines = ["/*!", f"    @enum {title}", f"    @discussion {discussion}"]
    if table:
        lines += [""] + table
    for name, text in entries:
        lines.append(f"    @constant {name} {text}")
    lines.append("*/")
    return lines


def declarations(constants):
    return [f"extern const CFStringRef {c['name']}\n    {AVAILABLE};" for c in constants]


def grouped(constants):
    """(title, discussion, [constants], group_key) in the order the groups first appear."""
    order, groups = [], {}
    for constant in constants:
        group = constant["group"]
        key = VALUE_GROUP_KEYS.get(group)
        title = f"{key} Value Constants" if key else GROUP_TITLES[group]
        if title not in groups:
            order.append(title)
            discussion = (f"The values {key} accepts." if key else GROUP_DISCUSSIONS.get(title, ""))
            groups[title] = (discussion, [], key)
        groups[title][1].append(constant)
    return [(title, groups[title][0], groups[title][1], groups[title][2]) for title in order]


def class_table(attributes):
    table = []
    for tag, class_name in CLASS_CONSTANTS.items():
        members = [a["name"] for a in attributes if tag in (a.get("classes") or [])]
        if not members:
            continue
        table.append(f"    {class_name} item attributes:")
        table += [f"        {name}" for name in members]
        table.append("")
    return table


def header(name, guard, body, includes=()):
    top = [
        f"/*!",
        f"    @header {name}",
        f"    Declarations of the keychain item API in the style of Apple's {name}, written for",
        f"    KeychainBridge. secgen reads this file; the Security module implements it.",
        f"*/",
        "",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
    ]
    top += [f'#include "{include}"' for include in includes]
    if includes:
        top.append("")
    top += ["CF_ASSUME_NONNULL_BEGIN", "CF_IMPLICIT_BRIDGING_ENABLED", ""]
    return "\n".join(top + body + ["", "CF_IMPLICIT_BRIDGING_DISABLED", "CF_ASSUME_NONNULL_END", "", f"#endif /* {guard} */", ""])


def constants_body(constants, with_table):
    body = []
    attributes = [c for c in constants if c["group"] == "attr"]
    for title, discussion, members, key in grouped(constants):
        table = class_table(attributes) if (with_table and title == "Attribute Key Constants") else None
        entries = [(c["name"], constant_text(c, key)) for c in members]
        body += enum_block(title, discussion, entries, table)
        body += declarations(members)
        body.append("")
    return body


FUNCTIONS = [
    ("SecItemCopyMatching", "Returns one or more keychain items that match a search query.",
     [("query", "A dictionary with the item class, the attributes to match, the search keys and the return type keys."),
      ("result", "On return, the found items in the shape the return type keys ask for. Pass NULL to test for existence.")],
     "OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef __nullable * __nullable CF_RETURNS_RETAINED result)\n    " + AVAILABLE + ";"),
    ("SecItemAdd", "Adds one item to the keychain.",
     [("attributes", "A dictionary with the item class, its attributes, its data, and optional return type keys."),
      ("result", "On return, the added item in the shape the return type keys ask for. Pass NULL when no result is wanted.")],
     "OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef __nullable * __nullable CF_RETURNS_RETAINED result)\n    " + AVAILABLE + ";"),
    ("SecItemUpdate", "Changes every keychain item that matches a search query.",
     [("query", "A dictionary with the item class and the attributes of the items to change."),
      ("attributesToUpdate", "A dictionary with the new attribute values and, optionally, new data.")],
     "OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate)\n    " + AVAILABLE + ";"),
    ("SecItemDelete", "Deletes every keychain item that matches a search query.",
     [("query", "A dictionary with the item class and the attributes of the items to delete.")],
     "OSStatus SecItemDelete(CFDictionaryRef query)\n    " + AVAILABLE + ";"),
]
# The codes these calls return, listed in each function's @result (secgen builds the typed error from them).
ITEM_RESULTS = [
    "errSecSuccess", "errSecUnimplemented", "errSecParam", "errSecAllocate", "errSecIO", "errSecWrPerm",
    "errSecNotAvailable", "errSecReadOnly", "errSecAuthFailed", "errSecInvalidKeychain", "errSecDuplicateItem",
    "errSecItemNotFound", "errSecNoSuchAttr", "errSecNoSuchClass", "errSecInteractionNotAllowed",
    "errSecInternalComponent", "errSecDecode", "errSecMissingEntitlement",
]


def functions_body():
    body = []
    results = ", ".join(ITEM_RESULTS)
    for name, abstract, parameters, prototype in FUNCTIONS:
        body.append("/*!")
        body.append(f"    @function {name}")
        body.append(f"    @abstract {abstract}")
        for parameter, text in parameters:
            body.append(f"    @param {parameter} {text}")
        body.append(f"    @result A result code: {results}.")
        body.append("*/")
        body.append(prototype)
        body.append("")
    return body


def status_codes_body():
    body = [
        "/*!",
        "    @enum Security Error Codes",
        "    @discussion The result codes of the Security functions; the comment after each says what it means.",
        "*/",
        "CF_ENUM(OSStatus)",
        "{",
    ]
    for error in SPEC["errors"]:
        meaning = error["meaning"].replace("*/", "* /").replace("\n", " ")
        body.append(f"    {error['name']} = {error['code']}, /* {meaning} */")
    body.append("};")
    body.append("")
    body += [
        "/*!",
        "    @function SecCopyErrorMessageString",
        "    @abstract Returns a sentence that describes a result code.",
        "    @param status A result code.",
        "    @param reserved Must be NULL.",
        "    @result The description, or \"OSStatus <n>\" for an unknown code.",
        "*/",
        "CFStringRef __nullable SecCopyErrorMessageString(OSStatus status, void * __nullable reserved)",
        "    " + AVAILABLE + ";",
    ]
    return body


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    public = [c for c in SPEC["constants"] if c.get("public")]
    private = [c for c in SPEC["constants"] if not c.get("public")]
    (OUT / "SecBase.h").write_text(header("SecBase", "_KEYCHAINBRIDGE_SECBASE_H_", status_codes_body()))
    (OUT / "SecItem.h").write_text(header(
        "SecItem", "_KEYCHAINBRIDGE_SECITEM_H_", constants_body(public, True) + functions_body(), ("SecBase.h",)))
    (OUT / "SecItemPriv.h").write_text(header(
        "SecItemPriv", "_KEYCHAINBRIDGE_SECITEMPRIV_H_", constants_body(private, True), ("SecItem.h",)))
