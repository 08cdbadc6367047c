// The `.drb` program kind as druba-mpi runs it: druba's front end (front/drb.h) and its
// distributed run (drb.cc).
#pragma once

#include <span>
#include <string_view>

#include "front/drb.h"
#include "mpi_front/kind.h"

namespace druba::mpi {

class DrbKind final : public Kind {
 public:
  run::FrontEnd& front() override { return front_; }
  std::span<const std::string_view> Takes(run::Command command) const override;
  run::Outcome Run(distributed::Comm& comm, const Request& request, LimitWatch& limits) override;

 private:
  front::DrbFrontEnd front_;
};

}  // namespace druba::mpi
