// A small JSON reader for druba's own files (traces, certificates): values remember where they
// stood, so an error about one can name file, line and column. A key given twice in one object is
// an error (a second value would silently replace the first).
//
// Certificates hold millions of small integers, so an array whose elements are all whole-number
// literals is kept packed (`integers`, read with Integers()) rather than as one value per element,
// and a value's place shares its file name with every other value of the document.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"

namespace druba {

// Where a value stood: converts to the SourceLocation an InputError names.
struct JsonPlace {
  std::shared_ptr<const std::string> file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  operator SourceLocation() const {  // NOLINT(google-explicit-constructor): a place is a location
    return {file ? *file : std::string(), line, column};
  }
};

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  bool whole = false;  // a number written with digits only, an optional '-' before them
  double number = 0;
  std::string text;                    // a string's text
  std::vector<JsonValue> items;        // an array's elements, unless they are all whole numbers
  std::vector<std::int64_t> integers;  // ... in which case they are here (and items is empty)
  std::map<std::string, JsonValue> fields;
  JsonPlace where;

  // The field `key` of an object; InputError naming this value's place if it is missing.
  const JsonValue& At(const std::string& key) const;
  bool Has(const std::string& key) const { return fields.contains(key); }
  bool AsBool() const;                  // InputError unless true or false
  std::uint32_t AsUInt() const;         // InputError unless a non-negative whole number
  const std::string& AsString() const;  // InputError unless a string
  // An array of whole numbers (the empty array included); InputError otherwise.
  std::span<const std::int64_t> Integers() const;
  // An array's elements (the empty array included); InputError unless an array that is not
  // made of whole numbers.
  const std::vector<JsonValue>& Items() const;
};

JsonValue ParseJson(std::string_view text, const std::string& file);

}  // namespace druba
