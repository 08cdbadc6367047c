// A quantifier's witnesses named, for the checker's ground queries (drb_every_count.cc).
#pragma once

#include <vector>

#include <fmt/format.h>
#include <z3++.h>

namespace druba::check {

// `e` with each quantifier that is existential where it stands (exists under an even number of
// negations, forall under an odd one; not below another quantifier, nor in an equivalence or a
// condition) replaced by its body at fresh constants, which join `fresh`: satisfiable exactly
// when `e` is, and the witnesses have names a ground query can instantiate the invariant at.
inline z3::expr Skolemize(const z3::expr& e, bool positive, std::vector<z3::expr>& fresh) {
  z3::context& ctx = e.ctx();
  if (e.is_quantifier()) {
    if (e.is_lambda() || e.is_exists() != positive) return e;
    const auto bound = static_cast<int>(Z3_get_quantifier_num_bound(ctx, e));
    z3::expr_vector names(ctx);
    for (int i = bound; i-- > 0;) {  // de Bruijn index 0 is the last bound variable
      const z3::sort sort(ctx, Z3_get_quantifier_bound_sort(ctx, e, static_cast<unsigned>(i)));
      names.push_back(ctx.constant(fmt::format("sk{}", fresh.size()).c_str(), sort));
      fresh.push_back(names.back());
    }
    return Skolemize(e.body().substitute(names), positive, fresh);
  }
  if (!e.is_app()) return e;
  const Z3_decl_kind kind = e.decl().decl_kind();
  if (kind == Z3_OP_NOT) return !Skolemize(e.arg(0), !positive, fresh);
  if (kind == Z3_OP_IMPLIES) {
    return z3::implies(Skolemize(e.arg(0), !positive, fresh), Skolemize(e.arg(1), positive, fresh));
  }
  if (kind != Z3_OP_AND && kind != Z3_OP_OR) return e;
  z3::expr_vector args(ctx);
  for (unsigned i = 0; i < e.num_args(); ++i) args.push_back(Skolemize(e.arg(i), positive, fresh));
  return kind == Z3_OP_AND ? z3::mk_and(args) : z3::mk_or(args);
}

}  // namespace druba::check
