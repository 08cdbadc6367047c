// A model given by its transition table, for testing the engine without any model kind (like
// DIVINE's fixed state spaces): a state is a shared value and one local value per thread, and
// each thread has a list of edges (shared, local) -> (shared', local'), `kAny` matching every
// shared value and leaving it unchanged. Beside it, Def. 1 by brute force over the same table.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <span>
#include <vector>

#include "explore/explorer.h"
#include "explore/state_store.h"

namespace druba::testing {

class FixedGraph {
 public:
  static constexpr Word kAny = ~Word{0};
  struct Edge {
    Word shared;
    Word local;
    Word to_shared;
    Word to_local;
  };

  FixedGraph(Word initial_shared, std::vector<Word> initial_locals,
             std::vector<std::vector<Edge>> edges)
      : initial_(1, initial_shared), edges_(std::move(edges)) {
    initial_.insert(initial_.end(), initial_locals.begin(), initial_locals.end());
  }

  std::uint32_t num_threads() const { return static_cast<std::uint32_t>(edges_.size()); }
  std::size_t state_width() const { return initial_.size(); }
  template <class F>
  void ForEachInitial(F&& f) const {
    f(StateView(initial_));
  }
  // Action i is the thread's i-th edge.
  template <class F>
  void ForEachSuccessor(StateView state, std::uint32_t thread, F&& f) const {
    std::vector<Word> next(state.begin(), state.end());
    for (std::uint32_t i = 0; i < edges_[thread].size(); ++i) {
      const Edge& e = edges_[thread][i];
      if ((e.shared != kAny && state[0] != e.shared) || state[1 + thread] != e.local) continue;
      next.assign(state.begin(), state.end());
      if (e.shared != kAny) next[0] = e.to_shared;
      next[1 + thread] = e.to_local;
      f(i, StateView(next));
    }
  }

  // A random table: `threads` threads, shared values below `shared`, locals below `locals`, up to
  // `max_edges` edges per thread.
  static FixedGraph Random(std::mt19937& rng, std::uint32_t threads, Word shared, Word locals,
                           std::uint32_t max_edges) {
    std::vector<std::vector<Edge>> edges(threads);
    const auto pick = [&](Word below) { return static_cast<Word>(rng() % below); };
    for (auto& list : edges) {
      const std::uint32_t count = 1 + static_cast<std::uint32_t>(rng() % max_edges);
      for (std::uint32_t i = 0; i < count; ++i) {
        const bool any = rng() % 4 == 0;
        list.push_back({any ? kAny : pick(shared), pick(locals), pick(shared), pick(locals)});
      }
    }
    return FixedGraph(0, std::vector<Word>(threads, 0), std::move(edges));
  }

 private:
  std::vector<Word> initial_;
  std::vector<std::vector<Edge>> edges_;
};

// R(r, d) of a model by Def. 1 (DESIGN.md section 2), by a search over (state, finder, slots,
// delays) that keeps every node it meets: slow, independent of the explorer.
template <class Model>
std::set<std::vector<Word>> Def1Reach(const Model& model, std::uint32_t rounds,
                                      std::uint32_t delays) {
  const std::uint32_t n = model.num_threads();
  struct Node {
    std::vector<Word> state;
    std::uint32_t finder;
    std::uint32_t slots;
    std::uint32_t delays;
    auto operator<=>(const Node&) const = default;
  };
  std::set<Node> seen;
  std::vector<Node> work;
  model.ForEachInitial([&](StateView s) {
    work.push_back({std::vector<Word>(s.begin(), s.end()), n - 1, 0, 0});
  });
  std::set<std::vector<Word>> reached;
  while (!work.empty()) {
    Node node = std::move(work.back());
    work.pop_back();
    if (!seen.insert(node).second) continue;
    reached.insert(node.state);
    if (node.slots + 1 > n * rounds) continue;  // ceil((slots + 1) / n) > rounds
    const std::uint32_t t = (node.finder + 1) % n;
    bool any = false;
    model.ForEachSuccessor(StateView(node.state), t, [&](std::uint32_t, StateView next) {
      any = true;
      work.push_back({std::vector<Word>(next.begin(), next.end()), t, node.slots + 1, node.delays});
    });
    if (!any) work.push_back({node.state, t, node.slots + 1, node.delays});  // a stutter
    if (node.delays < delays) work.push_back({node.state, t, node.slots + 1, node.delays + 1});
  }
  return reached;
}

}  // namespace druba::testing
