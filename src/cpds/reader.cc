#include "cpds/reader.h"

#include <fmt/format.h>
#include <cstdio>
#include <sstream>
#include <vector>

namespace druba::cpds {
namespace {

struct Token {
  std::string_view text;
  std::uint32_t column;  // 1-based
};

struct Line {
  std::uint32_t number;      // 1-based
  std::string_view content;  // without the comment
  std::vector<Token> tokens;
};

std::string ByteName(unsigned char byte) {
  return fmt::format("0x{:02x}", byte);
}

// Splits into lines, drops comments, rejects binary data, and cuts each line into tokens at white
// space; `->` is a token of its own even when written without spaces around it.
std::vector<Line> Lex(std::string_view text, const std::string& file) {
  std::vector<Line> lines;
  std::uint32_t number = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    ++number;
    bool in_comment = false;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const auto c = static_cast<unsigned char>(raw[i]);
      if (c == '#') in_comment = true;
      const bool control = c < 0x20 && c != '\t' && c != '\r';
      if (c == 0 || control || (!in_comment && c >= 0x7f)) {
        throw InputError({file, number, static_cast<std::uint32_t>(i + 1)},
                         "unexpected byte " + ByteName(c) + " (is this a text file?)");
      }
    }
    const std::size_t hash = raw.find('#');
    Line line{number, raw.substr(0, hash), {}};
    const std::string_view content = line.content;
    std::size_t i = 0;
    while (i < content.size()) {
      if (content[i] == ' ' || content[i] == '\t' || content[i] == '\r') {
        ++i;
        continue;
      }
      std::size_t j = i;
      if (content.substr(i, 2) == "->") {
        j = i + 2;
      } else {
        while (j < content.size() && content[j] != ' ' && content[j] != '\t' &&
               content[j] != '\r' && content.substr(j, 2) != "->") {
          ++j;
        }
      }
      line.tokens.push_back({content.substr(i, j - i), static_cast<std::uint32_t>(i + 1)});
      i = j;
    }
    if (!line.tokens.empty()) lines.push_back(line);
    if (end == text.size()) break;
    pos = end + 1;
  }
  return lines;
}

std::uint32_t ParseNumber(std::string_view text, const SourceLocation& where,
                          const std::string& what) {
  if (text.empty()) throw InputError(where, "expected " + what);
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') {
      throw InputError(where, "expected " + what + ", found '" + std::string(text) + "'");
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
    if (value > kMaxNumber) {
      throw InputError(where, "number too large: " + std::string(text) + " (at most " +
                                  std::to_string(kMaxNumber) + ")");
    }
  }
  return static_cast<std::uint32_t>(value);
}

class PdsReader {
 public:
  PdsReader(const std::string& file, Warnings* warnings) : file_(file), warnings_(warnings) {}

  Cpds Read(std::string_view text) {
    const std::vector<Line> lines = Lex(text, file_);
    if (lines.empty()) {
      throw InputError({file_, 1, 1}, "empty model: expected the number of shared states");
    }
    cpds_.file = file_;
    ReadSharedCount(lines.front());
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const Line& line = lines[i];
      if (line.tokens.front().text == "PDA") {
        ReadBlockHeader(line);
      } else {
        ReadRule(line);
      }
    }
    if (cpds_.threads.empty()) {
      throw InputError({file_, lines.back().number, 0},
                       "no 'PDA lo hi' block: a model needs "
                       "at least one thread");
    }
    return cpds_;
  }

 private:
  SourceLocation At(const Line& line, const Token& token) const {
    return {file_, line.number, token.column};
  }
  SourceLocation AtEnd(const Line& line) const {
    return {file_, line.number, static_cast<std::uint32_t>(line.content.size() + 1)};
  }

  void ReadSharedCount(const Line& line) {
    const Token& first = line.tokens.front();
    if (first.text == "PDA") {
      throw InputError(At(line, first),
                       "expected the number of shared states before the first "
                       "'PDA' block");
    }
    cpds_.shared_states = ParseNumber(first.text, At(line, first), "the number of shared states");
    if (cpds_.shared_states == 0) {
      throw InputError(At(line, first), "the number of shared states must be at least 1");
    }
    if (line.tokens.size() > 1) {
      throw InputError(At(line, line.tokens[1]),
                       "expected the end of the line after the number of shared states, found '" +
                           std::string(line.tokens[1].text) + "'");
    }
  }

  void ReadBlockHeader(const Line& line) {
    if (line.tokens.size() != 3) {
      throw InputError(line.tokens.size() < 3 ? AtEnd(line) : At(line, line.tokens[3]),
                       "a block header is 'PDA lo hi' (the thread's lowest and highest stack "
                       "symbol)");
    }
    Pda pda;
    pda.line = line.number;
    pda.lo = ParseNumber(line.tokens[1].text, At(line, line.tokens[1]), "the lowest symbol");
    pda.hi = ParseNumber(line.tokens[2].text, At(line, line.tokens[2]), "the highest symbol");
    if (pda.lo > pda.hi) {
      throw InputError(At(line, line.tokens[1]), "empty symbol range: lowest symbol " +
                                                     std::to_string(pda.lo) + " > highest " +
                                                     std::to_string(pda.hi));
    }
    cpds_.threads.push_back(pda);
  }

  Shared SharedAt(const Line& line, const Token& token) const {
    const Shared g = ParseNumber(token.text, At(line, token), "a shared state");
    if (g >= cpds_.shared_states) {
      throw InputError(At(line, token),
                       "shared state " + std::to_string(g) + " out of range: the model declares " +
                           std::to_string(cpds_.shared_states) + " shared states (0.." +
                           std::to_string(cpds_.shared_states - 1) + ")");
    }
    return g;
  }

  Symbol SymbolAt(const Line& line, const Token& token) {
    if (token.text == "-" || token.text == "->") {
      throw InputError(At(line, token),
                       "expected a stack symbol, found '" + std::string(token.text) + "'");
    }
    const Symbol symbol = ParseNumber(token.text, At(line, token), "a stack symbol");
    const Pda& pda = cpds_.threads.back();
    if ((symbol < pda.lo || symbol > pda.hi) && warnings_ != nullptr) {
      warnings_->push_back(FormatDiagnostic(
          At(line, token), "warning",
          "symbol " + std::to_string(symbol) + " lies outside the block's declared range " +
              std::to_string(pda.lo) + ".." + std::to_string(pda.hi) + " (line " +
              std::to_string(pda.line) + "); accepted"));
    }
    return symbol;
  }

  void ReadRule(const Line& line) {
    const auto& t = line.tokens;
    if (cpds_.threads.empty()) {
      throw InputError(At(line, t.front()),
                       "rule before any 'PDA lo hi' line: every rule "
                       "belongs to a thread's block");
    }
    std::size_t arrow = t.size();
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i].text == "->") {
        arrow = i;
        break;
      }
    }
    if (arrow == t.size()) {
      throw InputError(At(line, t.front()),
                       "missing '->': a rule is 'g l -> g' l'', "
                       "'g l -> g' l1 l2' or 'g l -> g' -'");
    }
    if (arrow != 2) {
      throw InputError(At(line, t[arrow]),
                       "a rule's left side is 'g l' (shared state and top "
                       "symbol): found " +
                           std::to_string(arrow) + (arrow == 1 ? " item" : " items"));
    }
    const std::size_t right = t.size() - arrow - 1;
    if (right < 2 || right > 3) {
      throw InputError(right < 2 ? AtEnd(line) : At(line, t[arrow + 4]),
                       "a rule's right side is 'g' l'' (overwrite), 'g' l1 l2' (push) or "
                       "'g' -' (pop): found " +
                           std::to_string(right) + (right == 1 ? " item" : " items"));
    }
    Rule rule;
    rule.line = line.number;
    rule.shared = SharedAt(line, t[0]);
    rule.top = SymbolAt(line, t[1]);
    rule.new_shared = SharedAt(line, t[3]);
    if (right == 2 && t[4].text == "-") {
      rule.kind = RuleKind::kPop;
    } else if (right == 2) {
      rule.kind = RuleKind::kOverwrite;
      rule.new_top = SymbolAt(line, t[4]);
    } else {
      rule.kind = RuleKind::kPush;
      rule.new_top = SymbolAt(line, t[4]);
      rule.below = SymbolAt(line, t[5]);
    }
    cpds_.threads.back().rules.push_back(rule);
  }

  const std::string& file_;
  Warnings* warnings_;
  Cpds cpds_;
};

// The one line of an .init or .spec file, or a --target value: `g|f0,f1,...`.
struct VisibleLine {
  std::optional<Shared> shared;
  std::vector<std::optional<Stack>> fields;
};

class VisibleReader {
 public:
  VisibleReader(std::string_view text, const std::string& file, bool wildcards)
      : file_(file), wildcards_(wildcards) {
    const std::vector<Line> lines = Lex(text, file);
    if (lines.empty()) {
      throw InputError({file, 1, 1}, "empty: expected a state 'g|stack0,stack1,...'");
    }
    if (lines.size() > 1) {
      throw InputError({file, lines[1].number, lines[1].tokens.front().column},
                       "expected one state 'g|stack0,stack1,...'; found a second line");
    }
    line_ = lines.front();
  }

  VisibleLine Read(const Cpds& cpds) {
    VisibleLine out;
    SkipSpace();
    const std::uint32_t shared_column = Column();
    if (wildcards_ && Peek() == '*') {
      ++pos_;
    } else {
      const Shared g = ParseNumber(Digits(), At(shared_column), "a shared state");
      if (g >= cpds.shared_states) {
        throw InputError(At(shared_column), "shared state " + std::to_string(g) +
                                                " out of range: the model "
                                                "declares " +
                                                std::to_string(cpds.shared_states) +
                                                " shared states");
      }
      out.shared = g;
    }
    SkipSpace();
    if (Peek() != '|') {
      throw InputError(At(Column()), "expected '|' after the shared state");
    }
    ++pos_;
    for (;;) {
      out.fields.push_back(ReadField());
      SkipSpace();
      if (AtLineEnd()) break;
      if (Peek() != ',') {
        throw InputError(At(Column()), "expected ',' between stacks");
      }
      ++pos_;
    }
    if (out.fields.size() != cpds.threads.size()) {
      throw InputError(At(Column()), "the state lists " + std::to_string(out.fields.size()) +
                                         " stacks but " + cpds.file + " has " +
                                         std::to_string(cpds.threads.size()) +
                                         " threads ('PDA' blocks)");
    }
    return out;
  }

 private:
  char Peek() const { return pos_ < line_.content.size() ? line_.content[pos_] : '\0'; }
  bool AtLineEnd() const { return pos_ >= line_.content.size(); }
  std::uint32_t Column() const { return static_cast<std::uint32_t>(pos_ + 1); }
  SourceLocation At(std::uint32_t column) const { return {file_, line_.number, column}; }
  void SkipSpace() {
    while (Peek() == ' ' || Peek() == '\t' || Peek() == '\r') ++pos_;
  }
  std::string_view Digits() {
    const std::size_t start = pos_;
    while (!AtLineEnd() && Peek() >= '0' && Peek() <= '9') ++pos_;
    if (pos_ == start && !AtLineEnd()) ++pos_;  // report the unexpected character itself
    return line_.content.substr(start, pos_ - start);
  }

  std::optional<Stack> ReadField() {
    SkipSpace();
    if (AtLineEnd() || Peek() == ',') return Stack{};
    if (Peek() == '-') {
      ++pos_;
      return Stack{};
    }
    if (wildcards_ && Peek() == '*') {
      ++pos_;
      return std::nullopt;
    }
    Stack stack;
    for (;;) {
      const std::uint32_t column = Column();
      stack.push_back(ParseNumber(Digits(), At(column), "a stack symbol"));
      if (Peek() != '.') break;
      ++pos_;
    }
    return stack;
  }

  const std::string& file_;
  bool wildcards_;
  Line line_{};
  std::size_t pos_ = 0;
};

}  // namespace

Cpds ParsePds(std::string_view text, const std::string& file, Warnings* warnings) {
  return PdsReader(file, warnings).Read(text);
}

InitialState ParseInit(std::string_view text, const std::string& file, const Cpds& cpds) {
  VisibleLine line = VisibleReader(text, file, /*wildcards=*/false).Read(cpds);
  InitialState init;
  init.shared = *line.shared;
  for (auto& field : line.fields) init.stacks.push_back(std::move(*field));
  return init;
}

TargetPattern ParseTarget(std::string_view text, const std::string& file, const Cpds& cpds) {
  VisibleLine line = VisibleReader(text, file, /*wildcards=*/true).Read(cpds);
  return TargetPattern{line.shared, std::move(line.fields)};
}

}  // namespace druba::cpds
