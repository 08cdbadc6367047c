#include "abstraction/verdict.h"

namespace druba {

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSafe:
      return "safe";
    case Verdict::kViolation:
      return "violation";
    case Verdict::kUnknown:
      return "unknown";
    case Verdict::kBounded:
      return "bounded";
  }
  return "unknown";
}

std::string_view ProofName(Proof proof) {
  switch (proof) {
    case Proof::kNone:
      return "none";
    case Proof::kPlateau:
      return "plateau";
    case Proof::kSandwich:
      return "sandwich";
    case Proof::kUpperBound:
      return "upper-bound";
    case Proof::kClosed:
      return "closed";
    case Proof::kExhausted:
      return "exhausted";
  }
  return "none";
}

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kDruba:
      return "druba";
    case Mode::kAi:
      return "ai";
    case Mode::kNaive:
      return "naive";
    case Mode::kExplicit:
      return "explicit";
  }
  return "?";
}

int ExitCodeFor(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSafe:
      return exit_code::kSafe;
    case Verdict::kViolation:
      return exit_code::kViolation;
    case Verdict::kUnknown:
      return exit_code::kUnknown;
    case Verdict::kBounded:
      return exit_code::kSafe;
  }
  return exit_code::kInternal;
}

}  // namespace druba
