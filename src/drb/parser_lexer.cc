// The .drb lexer: identifiers, decimal numbers, punctuation, `#` comments, and line ends LF, CRLF
// or a bare CR.
#include <cctype>
#include <cstdint>

#include <fmt/format.h>

#include "drb/parser_internal.h"

namespace druba::drb::internal {
namespace {

// The message for the character `rest` starts with: a UTF-8 character whole, with its code
// point (not its first byte alone), an invalid byte by its value.
std::string UnexpectedCharacter(std::string_view rest) {
  const auto byte = static_cast<unsigned char>(rest[0]);
  if (byte < 0x80) {
    if (byte >= 0x20 && byte < 0x7F) return std::string("unexpected character '") + rest[0] + "'";
    return fmt::format("unexpected control character 0x{:02X}", byte);
  }
  const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0;
  std::uint32_t code = byte & (length == 4 ? 0x07U : length == 3 ? 0x0FU : 0x1FU);
  bool valid = length > 0 && byte < 0xF5 && rest.size() >= length;
  for (std::size_t i = 1; valid && i < length; ++i) {
    const auto next = static_cast<unsigned char>(rest[i]);
    valid = (next & 0xC0) == 0x80;
    code = (code << 6) | (next & 0x3FU);
  }
  if (!valid) return fmt::format("unexpected byte 0x{:02X} (not ASCII, nor UTF-8)", byte);
  return fmt::format("unexpected character '{}' (U+{:04X}): outside comments a .drb file is ASCII",
                     rest.substr(0, length), code);
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    for (;;) {
      SkipSpaceAndComments();
      Token token;
      token.line = at_.line;
      token.column = at_.column;
      token.begin = pos_;
      if (pos_ >= text_.size()) {
        token.end = pos_;
        out.push_back(token);
        return out;
      }
      const char c = text_[pos_];
      if (c == '@' && pos_ + 1 < text_.size() &&
          std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
        // `@19`: the location of the unlabelled statement on line 19, as reports name it.
        token.kind = Token::Kind::kIdent;
        Advance();
        SkipDigits();
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        token.kind = Token::Kind::kIdent;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
          Advance();
        }
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        token.kind = Token::Kind::kNumber;
        LexNumber(token);
      } else {
        token.kind = Token::Kind::kPunct;
        LexPunct(c);
      }
      token.end = pos_;
      token.text = std::string(text_.substr(token.begin, token.end - token.begin));
      out.push_back(std::move(token));
    }
  }

 private:
  void Advance() {
    at_.Step(text_[pos_]);
    ++pos_;
  }
  void SkipDigits() {
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      Advance();
    }
  }
  // An integer literal from `token.begin`: digits not running into a name, at most
  // kMaxLiteralDigits of them after leading zeros.
  void LexNumber(const Token& token) {
    SkipDigits();
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      throw InputError({file_, at_.line, at_.column}, "a number runs into a name");
    }
    // Values stay below 2^kMaxValueBits (model.h); 10^1000 is well below.
    const std::string_view digits = text_.substr(token.begin, pos_ - token.begin);
    const std::size_t first = digits.find_first_not_of('0');
    if (first != std::string_view::npos && digits.size() - first > kMaxLiteralDigits) {
      throw InputError(
          {file_, token.line, token.column},
          "an integer literal has at most " + std::to_string(kMaxLiteralDigits) + " digits");
    }
  }
  // One or two characters of punctuation starting with `c`; any other character is an error.
  void LexPunct(char c) {
    static constexpr std::string_view kTwo[] = {
        ":=", "==", "!=", "<=", ">=", "&&", "||", "=>", ".."};
    bool two = false;
    for (const std::string_view p : kTwo) {
      if (text_.substr(pos_, 2) == p) two = true;
    }
    static constexpr std::string_view kOne = "+-*/%()[]{};,:<>!=";
    if (!two && kOne.find(c) == std::string_view::npos) {
      throw InputError({file_, at_.line, at_.column}, UnexpectedCharacter(text_.substr(pos_)));
    }
    Advance();
    if (two) Advance();
  }
  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#' || (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/')) {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        Advance();
      } else {
        return;
      }
    }
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  TextCursor at_;
};

}  // namespace

// Boost would read "010" as octal and reject "09".
Int DecimalLiteral(std::string_view digits) {
  const std::size_t first = digits.find_first_not_of('0');
  return first == std::string_view::npos ? Int(0) : Int(std::string(digits.substr(first)));
}

bool IsKeyword(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "shared",    "local",  "int",  "nat",  "bool",  "thread",       "abstraction", "track",
      "predicate", "pc",     "self", "true", "false", "forall",       "exists",      "count",
      "assume",    "assert", "if",   "then", "else",  "goto",         "while",       "do",
      "atomic",    "choose", "or",   "skip", "end",   "fetch_and_add"};
  for (const std::string_view k : kWords) {
    if (k == word) return true;
  }
  return false;
}

std::vector<Token> Lex(std::string_view text, const std::string& file) {
  return Lexer(text, file).Run();
}

}  // namespace druba::drb::internal
