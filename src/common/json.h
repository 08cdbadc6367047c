// A small streaming JSON writer: enough for druba's result objects and traces.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace druba {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(std::int64_t value);
  JsonWriter& UInt(std::uint64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  const std::string& str() const { return out_; }

 private:
  void Separate();
  std::string out_;
  std::vector<bool> first_;  // one entry per open container: no element written yet
  bool after_key_ = false;
};

std::string JsonEscape(std::string_view text);

}  // namespace druba
