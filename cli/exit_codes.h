// druba's exit codes (documented in docs/manual.md): the front end's table, which no library needs.
#pragma once

#include "abstraction/verdict.h"

namespace druba {

namespace exit_code {
inline constexpr int kSafe = 0;
inline constexpr int kUsage = 1;
inline constexpr int kInput = 2;
inline constexpr int kOutput = 3;  // the report could not be written (standard output failed)
inline constexpr int kUnknown = 5;
inline constexpr int kInternal = 6;
inline constexpr int kViolation = 10;
inline constexpr int kInvalidCertificate = 10;  // `druba check`: the certificate does not hold
}  // namespace exit_code

// The exit code of a verdict: safe and bounded 0, violation 10, unknown 5.
inline int ExitCodeFor(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSafe:
    case Verdict::kBounded:
      return exit_code::kSafe;
    case Verdict::kViolation:
      return exit_code::kViolation;
    case Verdict::kUnknown:
      return exit_code::kUnknown;
  }
  return exit_code::kInternal;
}

}  // namespace druba
