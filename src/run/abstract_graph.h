// `--dot FILE`: the reached abstract states and the abstract transitions between them (the
// abstraction of every transition out of the stored concrete states), as a Graphviz digraph. For
// small models: it refuses beyond kMaxDotNodes abstract states.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "explore/state_store.h"

namespace druba::run {

inline constexpr std::size_t kMaxDotNodes = 300;

inline std::string DotEscape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// `describe(thread, action)` names an action for the edge labels. Returns "" when the graph is
// too big.
template <class Model, class Abs, class Explorer, class Describe>
std::string AbstractGraphDot(Model& model, const Abs& abs, const Explorer& explorer,
                             const StateStore& abstract, Describe&& describe) {
  if (abstract.size() > kMaxDotNodes) return "";
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::string>> edges;
  std::vector<Word> from(abs.width());
  std::vector<Word> to(abs.width());
  std::vector<Word> state;
  StateStore outside(abs.width());  // abstract successors of states beyond the bounds
  for (std::uint32_t id = 0; id < explorer.num_states(); ++id) {
    state = explorer.state(id);
    abs.Abstract(StateView(state), std::span<Word>(from));
    const auto from_id = abstract.Find(StateView(from));
    if (!from_id) continue;
    for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
      model.ForEachSuccessor(StateView(state), t, [&](std::uint32_t action, StateView s) {
        abs.Abstract(s, std::span<Word>(to));
        if (to == from) return;
        std::uint32_t to_id = 0;
        if (const auto found = abstract.Find(StateView(to))) {
          to_id = *found;
        } else {
          to_id =
              static_cast<std::uint32_t>(abstract.size()) + outside.FindOrInsert(StateView(to)).id;
        }
        edges.emplace(*from_id, to_id, describe(t, action));
      });
    }
  }
  std::string dot = "digraph abstract_states {\n  node [shape=box, fontname=\"sans-serif\"];\n";
  for (std::uint32_t id = 0; id < abstract.size(); ++id) {
    const bool failed = abs.Violates(abstract.Get(id));
    dot += "  s" + std::to_string(id) + " [label=\"" + DotEscape(abs.Describe(abstract.Get(id))) +
           "\"" + (failed ? ", color=red" : "") + "];\n";
  }
  for (std::uint32_t id = 0; id < outside.size(); ++id) {
    dot += "  s" + std::to_string(abstract.size() + id) + " [label=\"" +
           DotEscape(abs.Describe(outside.Get(id))) + "\", style=dashed];\n";
  }
  for (const auto& [a, b, label] : edges) {
    dot += "  s" + std::to_string(a) + " -> s" + std::to_string(b) + " [label=\"" +
           DotEscape(label) + "\"];\n";
  }
  dot += "}\n";
  return dot;
}

}  // namespace druba::run
