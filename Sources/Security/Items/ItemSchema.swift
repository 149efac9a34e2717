extension ItemClass {
  /// The 4 ASCII bytes that start a persistent reference (rule 13).
  package var tag: [UInt8] { Array(rawValue.utf8) }
}

/// How an attribute's values are accepted, compared and returned (rule 1.1).
package enum AttributeKind: Sendable {
  /// Caller's type (String, Data, Number) preserved; compared by bytes (rule 9.4).
  case blob
  /// Stored and returned as Data; a String is taken as its UTF-8 bytes.
  case data
  /// Stored and returned as String; Data is taken as UTF-8.
  case string
  /// A number; Bool is 0/1, a numeric string is a number, other strings stay strings (rule 9.5).
  case number
  /// The synchronizable flag: Bool, Number or String, stored as 0 or 1.
  case synchronizable
  /// A date; only Date values are accepted.
  case date
  /// kSecAttrAccessible: one of the accessibility constants.
  case accessibility
  /// kSecAttrAccessControl: a SecAccessControl object, kept apart from the other attributes.
  case accessControl
}

/// Who sets an attribute: the caller, or the store (rule 2.2).
package enum AttributeOwnership: Sendable {
  case caller
  /// cdat and mdat: ignored on add, errSecParam in attributesToUpdate (decision 7).
  case storeDates
  /// tomb, musr, sha1, UUID, persistref: the store sets them; caller values are ignored.
  case system
  /// Accepted names that have no meaning here (macOS legacy): errSecParam when used.
  case unsupported
}

/// One attribute of an item class.
package struct AttributeDefinition: Sendable {
  package let key: String
  package let kind: AttributeKind
  package let ownership: AttributeOwnership
}

/// The per-class attribute tables and primary keys, which secgen renders from
/// Sources/Security/Definitions/SecItemDefinitions.c and the headers (Generated/SecItemSchema.swift).
package enum ItemSchema {
  private static let tables: [ItemClass: [String: AttributeDefinition]] = ItemSchemaDefinitions.attributes
    .mapValues { definitions in Dictionary(uniqueKeysWithValues: definitions.map { ($0.key, $0) }) }

  /// Every attribute key of `itemClass`.
  package static func attributeKeys(of itemClass: ItemClass) -> Dictionary<String, AttributeDefinition>.Keys {
    (tables[itemClass] ?? [:]).keys
  }

  /// The attribute named `key` of `itemClass`, or nil when the class has no such attribute.
  package static func attribute(_ key: String, of itemClass: ItemClass) -> AttributeDefinition? {
    tables[itemClass]?[key]
  }

  /// The documented primary key of a class, without agrp and sync, which the store always adds
  /// (rule 2.1). The SPI columns (vwht, tkid, ggrp) are part of Apple's unique index too.
  package static func primaryKey(of itemClass: ItemClass) -> [String] {
    ItemSchemaDefinitions.primaryKeys[itemClass] ?? []
  }

  /// Primary-key attributes that get a default when the caller leaves them out (rule 2.1).
  package static func primaryKeyDefaults(of itemClass: ItemClass) -> [String: AttributeValue] {
    ItemSchemaDefinitions.primaryKeyDefaults[itemClass] ?? [:]
  }

  /// The default protection of new items (rule 2.2).
  package static let defaultAccessibility = ItemSchemaDefinitions.defaultProtection
}

extension String {
  /// True for ThisDeviceOnly protection values: such items never leave the store (no sync, no
  /// export), whatever their synchronizable flag says (decision 4).
  package var isThisDeviceOnlyAccessibility: Bool { hasSuffix("u") }
}

/// What the typed API needs to know about an item class to find an item by its identity.
package struct SecItemClassSchema: Sendable {
  /// Every attribute key of the class.
  public let attributes: Set<String>
  /// The class's primary-key attributes (rule 2.1), without the access group and sync flag.
  public let primaryKey: [String]
  /// The value an add gives each primary-key attribute the caller leaves out: a String or an Int.
  public let primaryKeyDefaults: [String: any Sendable]

  /// The schema of the class whose `kSecClass` value is `itemClass`, or nil for an unknown class.
  public init?(itemClass: String) {
    guard let parsed = ItemClass(rawValue: itemClass) else { return nil }
    attributes = Set(ItemSchema.attributeKeys(of: parsed))
    primaryKey = ItemSchema.primaryKey(of: parsed)
    primaryKeyDefaults = ItemSchema.primaryKeyDefaults(of: parsed).compactMapValues { value -> (any Sendable)? in
      switch value {
      case .string(let text): text
      case .integer(let number): Int(number)
      case .data(let bytes): bytes
      case .double, .date: nil
      }
    }
  }
}
