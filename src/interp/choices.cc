// The values the explicit search takes where a program chooses freely (`x := *`), and what that
// means for its proofs (interp/model.h).
#include <algorithm>
#include <string>
#include <vector>

#include "interp/model.h"

namespace druba::predabs {

namespace {

constexpr std::size_t kMaxSamples = 12;

void Literals(const std::vector<Instr>& body, std::vector<Int>& out) {
  const auto visit = [&out](const Expr& e) {
    if (e.kind == Expr::Kind::kNumber) out.push_back(e.value);
  };
  for (const Instr& op : body) {
    for (const ExprPtr& e : op.exprs) WalkExpr(*e, visit);
    for (const std::vector<Instr>& block : op.blocks) Literals(block, out);
  }
}

}  // namespace

std::vector<Int> SampleValues(const Program& program) {
  std::vector<Int> literals;
  for (const Statement& st : program.statements) Literals(st.body, literals);
  std::vector<Int> out{0, 1, -1, 2};
  for (const Int& v : literals) {
    for (const Int& w : {v, Int(v - 1), Int(v + 1)}) out.push_back(w);
  }
  std::stable_sort(out.begin(), out.end(), [](const Int& a, const Int& b) {
    return boost::multiprecision::abs(a) < boost::multiprecision::abs(b);
  });
  std::vector<Int> unique;
  for (const Int& v : out) {
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
    if (unique.size() == kMaxSamples) break;
  }
  return unique;
}

std::string SampledNote(const Program& program, std::size_t samples) {
  if (program.chooses_at.line == 0) return "";
  const SourceLocation& at = program.chooses_at;
  return "`*` at " + at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
         " may choose any integer, and the search takes " + std::to_string(samples) + " of them";
}

}  // namespace druba::predabs
