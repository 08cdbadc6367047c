#include "abstraction/verdict.h"

#include <utility>

namespace druba {

namespace {

// The lattice of Combine, worst first.
int Rank(Verdict verdict) {
  switch (verdict) {
    case Verdict::kViolation:
      return 0;
    case Verdict::kUnknown:
      return 1;
    case Verdict::kBounded:
      return 2;
    case Verdict::kSafe:
      return 3;
  }
  return 1;
}

}  // namespace

Finding Combine(Finding a, Finding b) {
  return Rank(b.verdict) < Rank(a.verdict) ? std::move(b) : std::move(a);
}

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
    case Proof::kInvariant:
      return "invariant";
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

}  // namespace druba
