// Concurrent pushdown systems in the format of the CUBA tool (DESIGN.md section 7).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace druba::cpds {

using Symbol = std::uint32_t;
using Shared = std::uint32_t;

enum class RuleKind : std::uint8_t {
  kOverwrite,  // g l -> g' l'
  kPush,       // g l -> g' l1 l2   (l1 becomes the top, l2 is left below it)
  kPop,        // g l -> g' -
};

struct Rule {
  Shared shared = 0;
  Symbol top = 0;
  RuleKind kind = RuleKind::kOverwrite;
  Shared new_shared = 0;
  Symbol new_top = 0;  // overwrite: the new top; push: l1
  Symbol below = 0;    // push: l2
  std::uint32_t line = 0;
};

struct Pda {
  Symbol lo = 0;  // declared symbol range (a rule outside it is a warning, not an error)
  Symbol hi = 0;
  std::uint32_t line = 0;
  std::vector<Rule> rules;  // action i of the thread is rules[i]
};

struct Cpds {
  std::string file;
  std::uint32_t shared_states = 0;
  std::vector<Pda> threads;
};

// A stack is written bottom to top.
using Stack = std::vector<Symbol>;

struct InitialState {
  Shared shared = 0;
  std::vector<Stack> stacks;
};

// A visible state to reach: the shared state and the top symbols of every stack. A stack pattern
// lists the top symbols bottom to top (empty: the stack is empty); nullopt matches anything.
struct TargetPattern {
  std::optional<Shared> shared;
  std::vector<std::optional<Stack>> stacks;
};

// The largest number the reader accepts for a symbol, a shared state or the shared-state count.
inline constexpr std::uint32_t kMaxNumber = (1U << 24) - 1;

}  // namespace druba::cpds
