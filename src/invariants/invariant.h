// An invariant per location tuple as a proof of its own (`proof: invariant`, docs/drb.md): every
// reachable state of the program at a fixed thread count stands at one of the listed tuples and
// satisfies that tuple's formula. It is one when the initial state is covered, every step from a
// covered state (a failing one included) leads to a covered state (an error location is at no
// listed tuple), and, when deadlocks count, no covered state is a deadlock.
//
// The formulas come from the Horn solver (invariants/horn.h) as `.drb` text; before `verify` claims
// the proof, CheckInvariant decides those three conditions for the text, with the closure test's
// encoding (predabs::Encoder), so that an error in reading the solver's answer back cannot make a
// wrong proof. `druba check` decides them again with its own encoding (check/drb_invariant.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/resources.h"
#include "interp/program.h"
#include "invariants/horn.h"

namespace druba::predabs {

// The formulas as an abstraction block (`predicate at0: ...;` one per tuple, in order) that parses
// after the model's text.
std::string InvariantBlock(const std::vector<LocatedFormula>& invariant);

struct InvariantCheck {
  bool holds = false;
  std::string why;  // when it does not: the first condition that failed, or was undecided
  std::uint64_t queries = 0;
  double seconds = 0;
};

// Decides the conditions above for `invariant` of `program` (parsed from `source`) at `threads`
// threads; `deadlock`: also no covered deadlock.
InvariantCheck CheckInvariant(const std::string& source, const Program& program,
                              std::uint32_t threads, bool deadlock,
                              const std::vector<LocatedFormula>& invariant, unsigned timeout_ms,
                              LimitWatch* limits);

// The certificate (docs/certificates.md, kind "drb invariant").
std::string InvariantCertificate(const std::string& digest, std::uint32_t threads, bool deadlock,
                                 const std::vector<LocatedFormula>& invariant);

}  // namespace druba::predabs
