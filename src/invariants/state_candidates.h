// Candidates about one thread's state from what the finite instances showed
// (instance_observations.h): the values a variable keeps where a thread stands, and the own states
// (location and live locals) threads are never in together, or in which a shared variable keeps
// fewer values than at the location. Used by instance_candidates.cc only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "invariants/instance_candidates.h"
#include "invariants/instance_observations.h"

namespace druba::predabs::instance_detail {

// The candidates that `seen` keeps about variable `name` where `head` (`pc[self] != a || `) is
// false.
void VariableCandidates(const std::string& head, const std::string& name, const Variable& var,
                        bool id, const Seen& seen, const std::string& count,
                        std::vector<std::string>& out);
// `pc[self] != a || v[self] != 1 || ...`: thread `who` is not in own state `key`.
std::optional<std::string> NotIn(const Program& p, const Observations& o, const Places& places,
                                 const std::vector<Int>& key, const std::string& who);
// `pc[self] != a || v[self] != 0 || lock == 1`: what a shared variable keeps in an own state.
void OwnStateValues(const Program& p, const Observations& o, const Places& places,
                    const std::vector<bool>& large, const std::string& count,
                    std::vector<std::string>& out);
// Pairs of own states that threads i < j were never seen in, where their locations were.
void OwnPairs(const Program& p, const Observations& o, const Places& places,
              std::vector<std::string>& out);
// `(forall k: <k not in own state a>) || exists m: <atom of m>`.
void Existence(const Program& p, const Observations& o, const Places& places,
               std::vector<std::string>& out);
// The observations with locals of many values left out of own states, where that makes them few
// (`always`: also where they are few already).
Observations ProjectOwnStates(const Program& p, const Observations& o, bool always = false);

}  // namespace druba::predabs::instance_detail
