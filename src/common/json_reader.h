// A small JSON reader for druba's own files (traces): values remember where they stood, so an
// error about one can name file, line and column.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"

namespace druba {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<JsonValue> items;
  std::map<std::string, JsonValue> fields;
  SourceLocation where;

  // The field `key` of an object; InputError naming this value's place if it is missing.
  const JsonValue& At(const std::string& key) const;
  bool Has(const std::string& key) const { return fields.contains(key); }
  std::uint32_t AsUInt() const;         // InputError unless a non-negative whole number
  const std::string& AsString() const;  // InputError unless a string
};

JsonValue ParseJson(std::string_view text, const std::string& file);

}  // namespace druba
