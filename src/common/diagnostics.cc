#include "common/diagnostics.h"

namespace druba {

std::string FormatDiagnostic(const SourceLocation& where, const std::string& severity,
                             const std::string& message) {
  std::string out = where.file;
  if (where.line > 0) {
    out += ":" + std::to_string(where.line);
    if (where.column > 0) out += ":" + std::to_string(where.column);
  }
  out += ": " + severity + ": " + message;
  return out;
}

}  // namespace druba
