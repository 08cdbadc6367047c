// Independent reference computations for differential tests: nothing here uses the explorer,
// the state store or the CPDS model's hash-consed stacks.
#pragma once

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cpds/cpds.h"

namespace druba::testing {

// A program state with plain stacks (bottom to top).
struct PlainState {
  cpds::Shared shared = 0;
  std::vector<cpds::Stack> stacks;
  auto operator<=>(const PlainState&) const = default;
};

// The top-K abstraction of `s` as TopKAbstraction::Describe writes it: "g|t0,t1,...", each stack's
// top K symbols bottom to top.
std::string AlphaOf(const PlainState& s, std::uint32_t k);

// Successors of `s` when thread t takes its slot: one per enabled rule, or `s` itself (stutter).
std::vector<PlainState> PlainSuccessors(const cpds::Cpds& cpds, const PlainState& s,
                                        std::uint32_t t);

// Every (state, last thread, steps l, delays dp) reachable by Def. 1 paths with dp <= max_delays
// and l + dp <= n * max_rounds, from which R(r, d) for any r, d up to those can be read off.
class Def1Reference {
 public:
  Def1Reference(const cpds::Cpds& cpds, const cpds::InitialState& init, std::uint32_t max_rounds,
                std::uint32_t max_delays);
  // R(r,d) by Def. 1: some path has dp <= d and ceil((l + dp) / n) <= r.
  std::set<PlainState> Reach(std::uint32_t rounds, std::uint32_t delays) const;

 private:
  struct Node {
    PlainState state;
    std::uint32_t last;
    std::uint32_t steps;
    std::uint32_t delays;
    auto operator<=>(const Node&) const = default;
  };
  std::uint32_t n_;
  std::set<Node> nodes_;
};

// All states reachable under free scheduling, or nothing if more than `cap` exist.
std::optional<std::set<PlainState>> FreeReach(const cpds::Cpds& cpds,
                                              const cpds::InitialState& init, std::size_t cap);

struct RandomCpdsOptions {
  std::uint32_t max_threads = 4;
  std::uint32_t max_shared = 3;
  std::uint32_t symbols = 3;
  std::uint32_t max_rules = 5;
  bool recursion = true;  // push rules allowed
};

// A random small CPDS with its initial state (one to two symbols per stack, sometimes empty).
std::pair<cpds::Cpds, cpds::InitialState> RandomCpds(std::mt19937& rng,
                                                     const RandomCpdsOptions& options);

}  // namespace druba::testing
