// The certificate of a CPDS `safe` (docs/certificates.md): the final abstract set S of the
// top-K abstraction and the may-lie-below relation relative to S (below.h). S contains the
// initial abstract state, has no target (or deadlocked) state, and is closed under the abstract
// post of every rule of every thread, pops drawn from the relation; the relation holds of the
// initial stacks and is closed under the rules of below.h. Together they imply the verdict
// (below.h's soundness argument), which `druba check` tests without the engine that found them.
#pragma once

#include <cstdint>
#include <string>

#include "cpds/below.h"
#include "cpds/cpds.h"
#include "explore/state_store.h"

namespace druba::cpds {

struct CertificateFacts {
  std::string digest;  // ContentDigest of the model, initial state and target texts
  std::uint32_t k = 1;
  std::uint32_t threads = 0;
  bool deadlock = false;
  bool target = false;
  std::string proof;  // which argument answered
  const StateStore* set = nullptr;
  const MayLieBelow* below = nullptr;
};

// The certificate as JSON text (version 1; symbols and shared states as numbers, -1 for an empty
// slot or the bottom of a stack; every list sorted).
std::string CertificateText(const CertificateFacts& facts);

}  // namespace druba::cpds
