// The verdict lattice and its exit codes (STYLE.md 6). "No violation within the bounds" is
// `bounded`, never `safe`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace druba {

enum class Verdict {
  kSafe,       // every condition of the convergence theorem was checked
  kViolation,  // a reachable state violates the property; a trace comes with it
  kUnknown,    // closure failed, or a limit or bound stopped the work; the reason says which
  kBounded,    // `druba test`: no violation within the given bounds
};

// Which argument answered `safe`.
enum class Proof {
  kNone,
  kPlateau,     // Thm. 7: plateaus and closure under the disrespecting actions
  kSandwich,    // O is covered by Sym(alpha(R(r,d))): alpha(R) = O
  kUpperBound,  // no state of O violates the property
  kClosed,      // `ai`: the reached set is closed under every action
  kExhausted,   // `explicit`: every reachable state explored
  kInvariant,   // `.drb`: an inductive invariant per location tuple excludes every failure
};

enum class Mode {
  kDruba,     // frontier-driven R(r,d); closure under the disrespecting actions at the plateau
  kAi,        // the same, and after every raise a closure test under all actions: closed is safe
  kNaive,     // every R(r,d) recomputed from the initial states; otherwise as kDruba
  kExplicit,  // no bounds: exhaustive search under free scheduling (PlateauDriver::Explicit)
};

// What checking one claim found: its verdict and why.
struct Finding {
  Verdict verdict = Verdict::kSafe;
  std::string reason;
};

// Several claims that must all hold (every thread count, each condition of a proof) combine as
// CBMC's property results do: a violation of any one is a violation; otherwise an undecided one
// makes the whole unknown; otherwise one checked only within bounds makes it bounded; only claims
// that all hold are safe. The result carries the reason of the claim that decided it (the first
// one's when both are alike).
Finding Combine(Finding a, Finding b);

std::string_view VerdictName(Verdict verdict);
std::string_view ProofName(Proof proof);
std::string_view ModeName(Mode mode);  // "druba", "ai", "naive", "explicit"

// "1 round", "2 rounds": a count and its noun, in the plural unless it is one.
inline std::string Counted(std::uint64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace druba
