#include "common/json_reader.h"

#include <cmath>
#include <cstdlib>

namespace druba {
namespace {

class Reader {
 public:
  Reader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  JsonValue Document() {
    JsonValue value = Value(0);
    Space();
    if (pos_ < text_.size()) Fail("unexpected text after the JSON value");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& message) const { throw InputError(Here(), message); }
  SourceLocation Here() const { return {file_, at_.line, at_.column}; }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void Advance() {
    at_.Step(text_[pos_]);
    ++pos_;
  }
  void Space() {
    while (pos_ < text_.size() &&
           (Peek() == ' ' || Peek() == '\n' || Peek() == '\t' || Peek() == '\r')) {
      Advance();
    }
  }
  void Expect(char c) {
    Space();
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    Advance();
  }

  JsonValue Value(int depth) {
    if (depth > 64) Fail("JSON nested too deeply");
    Space();
    JsonValue v;
    v.where = Here();
    const char c = Peek();
    if (c == '{') {
      v.kind = JsonValue::Kind::kObject;
      Advance();
      Space();
      if (Peek() == '}') {
        Advance();
        return v;
      }
      for (;;) {
        Space();
        if (Peek() != '"') Fail("expected a field name in quotes");
        const std::string key = String();
        Expect(':');
        v.fields[key] = Value(depth + 1);
        Space();
        if (Peek() == ',') {
          Advance();
          continue;
        }
        Expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = JsonValue::Kind::kArray;
      Advance();
      Space();
      if (Peek() == ']') {
        Advance();
        return v;
      }
      for (;;) {
        v.items.push_back(Value(depth + 1));
        Space();
        if (Peek() == ',') {
          Advance();
          continue;
        }
        Expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = JsonValue::Kind::kString;
      v.text = String();
      return v;
    }
    if (Word("true") || Word("false")) {
      v.kind = JsonValue::Kind::kBool;
      v.boolean = c == 't';
      return v;
    }
    if (Word("null")) return v;
    if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             std::string_view("+-.eE0123456789").find(Peek()) != std::string_view::npos) {
        Advance();
      }
      const std::string number(text_.substr(start, pos_ - start));
      char* end = nullptr;
      v.kind = JsonValue::Kind::kNumber;
      v.text = number;  // the literal, so that AsUInt can insist on digits only
      v.number = std::strtod(number.c_str(), &end);
      if (end != number.c_str() + number.size()) Fail("malformed number '" + number + "'");
      return v;
    }
    if (pos_ >= text_.size()) Fail("unexpected end of the file");
    Fail(std::string("unexpected character '") + c + "'");
  }

  bool Word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    for (std::size_t i = 0; i < word.size(); ++i) Advance();
    return true;
  }

  std::string String() {
    Advance();  // the opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size() || Peek() == '\n') Fail("unterminated string");
      const char c = Peek();
      Advance();
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = Peek();
      Advance();
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) Fail("malformed \\u escape");
          const std::string hex(text_.substr(pos_, 4));
          for (int i = 0; i < 4; ++i) Advance();
          const long code = std::strtol(hex.c_str(), nullptr, 16);
          out += code < 0x80 ? static_cast<char>(code) : '?';
          break;
        }
        default:
          Fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  TextCursor at_;
};

}  // namespace

const JsonValue& JsonValue::At(const std::string& key) const {
  if (kind != Kind::kObject) throw InputError(where, "expected an object with '" + key + "'");
  const auto it = fields.find(key);
  if (it == fields.end()) throw InputError(where, "missing field '" + key + "'");
  return it->second;
}

std::uint32_t JsonValue::AsUInt() const {
  if (kind != Kind::kNumber || number < 0 || number > 4294967295.0 ||
      std::floor(number) != number || text.find_first_not_of("0123456789") != std::string::npos) {
    throw InputError(where, "expected a whole number (digits only)");
  }
  return static_cast<std::uint32_t>(number);
}

const std::string& JsonValue::AsString() const {
  if (kind != Kind::kString) throw InputError(where, "expected a string");
  return text;
}

JsonValue ParseJson(std::string_view text, const std::string& file) {
  return Reader(text, file).Document();
}

}  // namespace druba
