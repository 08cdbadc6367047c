// Input errors and warnings that name a file, line and column.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace druba {

struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;    // 1-based; 0 means "the file as a whole"
  std::uint32_t column = 0;  // 1-based; 0 means "the line as a whole"
};

// The 1-based line and column of a reader walking through text, one character at a time.
struct TextCursor {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  void Step(char c) {
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
};

// Renders "file:line:col: <severity>: message" (line and column only where known).
std::string FormatDiagnostic(const SourceLocation& where, const std::string& severity,
                             const std::string& message);

// Bad input: a malformed model, trace or option value. The command line maps it to exit code 2.
class InputError : public std::runtime_error {
 public:
  InputError(const SourceLocation& where, const std::string& message)
      : std::runtime_error(FormatDiagnostic(where, "error", message)),
        where_(where),
        message_(message) {}
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// Warnings collected while reading input; the caller decides where they are printed.
using Warnings = std::vector<std::string>;

}  // namespace druba
