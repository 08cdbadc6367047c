#include "common/json_reader.h"

#include <charconv>
#include <cstdlib>

namespace druba {
namespace {

class Reader {
 public:
  Reader(std::string_view text, const std::string& file)
      : text_(text), file_(std::make_shared<const std::string>(file)) {}

  JsonValue Document() {
    JsonValue value = Value(0);
    Space();
    if (pos_ < text_.size()) Fail("unexpected text after the JSON value");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& message) const { throw InputError(Here(), message); }
  JsonPlace Here() const { return {file_, at_.line, at_.column}; }
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
        const JsonPlace at = Here();
        const std::string key = String();
        Expect(':');
        if (!v.fields.try_emplace(key, Value(depth + 1)).second) {
          throw InputError(at, "the field '" + key + "' is given twice");
        }
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
        Element(v, depth + 1);
        Space();
        if (Peek() == ',') {
          Advance();
          continue;
        }
        Expect(']');
        v.items.shrink_to_fit();
        v.integers.shrink_to_fit();
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
      const Literal n = Number();
      v.kind = JsonValue::Kind::kNumber;
      v.whole = n.whole;
      v.number = n.value;
      return v;
    }
    if (pos_ >= text_.size()) Fail("unexpected end of the file");
    Fail(std::string("unexpected character '") + c + "'");
  }

  // A number literal: its value, and whether it is written with digits only (after an optional
  // '-') and fits a 64-bit integer.
  struct Literal {
    double value = 0;
    bool whole = false;
    std::int64_t integer = 0;
  };
  Literal Number() {
    const std::size_t start = pos_;
    const TextCursor at = at_;  // a place is made only for an error: numbers are many
    while (pos_ < text_.size() &&
           std::string_view("+-.eE0123456789").find(Peek()) != std::string_view::npos) {
      Advance();
    }
    const std::string_view literal = text_.substr(start, pos_ - start);
    Literal n;
    const char* first = literal.data();
    const char* last = first + literal.size();
    const auto [end, error] = std::from_chars(first, last, n.integer);
    if (error == std::errc() && end == last && literal.find('+') == std::string_view::npos) {
      n.whole = true;
      n.value = static_cast<double>(n.integer);
      return n;
    }
    const std::string copy(literal);
    char* stop = nullptr;
    n.value = std::strtod(copy.c_str(), &stop);
    if (stop != copy.c_str() + copy.size()) {
      throw InputError(JsonPlace{file_, at.line, at.column}, "malformed number '" + copy + "'");
    }
    return n;
  }

  // One element of the array `v`: whole numbers go to v.integers while every element is one.
  void Element(JsonValue& v, int depth) {
    Space();
    const char c = Peek();
    if ((c == '-' || (c >= '0' && c <= '9')) && v.items.empty()) {
      const TextCursor at = at_;
      const Literal n = Number();
      if (n.whole) {
        v.integers.push_back(n.integer);
        return;
      }
      Unpack(v);
      JsonValue e;
      e.kind = JsonValue::Kind::kNumber;
      e.number = n.value;
      e.where = JsonPlace{file_, at.line, at.column};
      v.items.push_back(std::move(e));
      return;
    }
    Unpack(v);
    v.items.push_back(Value(depth));
  }
  // The packed elements of `v` as values of their own (they are named by the array's place).
  static void Unpack(JsonValue& v) {
    for (const std::int64_t x : v.integers) {
      JsonValue e;
      e.kind = JsonValue::Kind::kNumber;
      e.whole = true;
      e.number = static_cast<double>(x);
      e.where = v.where;
      v.items.push_back(std::move(e));
    }
    v.integers.clear();
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
  std::shared_ptr<const std::string> file_;
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

bool JsonValue::AsBool() const {
  if (kind != Kind::kBool) throw InputError(where, "expected true or false");
  return boolean;
}

std::uint32_t JsonValue::AsUInt() const {
  if (kind != Kind::kNumber || !whole || number < 0 || number > 4294967295.0) {
    throw InputError(where, "expected a whole number (digits only)");
  }
  return static_cast<std::uint32_t>(number);
}

std::span<const std::int64_t> JsonValue::Integers() const {
  if (kind != Kind::kArray || !items.empty())
    throw InputError(where, "expected an array of whole numbers");
  return integers;
}

const std::vector<JsonValue>& JsonValue::Items() const {
  if (kind != Kind::kArray || !integers.empty())
    throw InputError(where, "expected an array of values other than numbers");
  return items;
}

const std::string& JsonValue::AsString() const {
  if (kind != Kind::kString) throw InputError(where, "expected a string");
  return text;
}

JsonValue ParseJson(std::string_view text, const std::string& file) {
  return Reader(text, file).Document();
}

}  // namespace druba
