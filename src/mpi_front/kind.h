// A model kind as druba-mpi runs it, as run::FrontEnd is a kind as druba runs it. Each kind is
// druba's front end (its name, extension and option group: an option is declared once, for both
// programs), the options of druba's command line its distributed run takes (the others are
// refused, never ignored), and the run at every process, which ends in druba's outcome: the
// report druba prints, with a section of the distributed figures. mpi/main.cc is the table of
// kinds; mpi/command_line.cc knows no kind.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "common/resources.h"
#include "distributed/comm.h"
#include "distributed/request.h"
#include "run/front_end.h"
#include "run/options.h"

namespace druba::mpi {

// What druba-mpi hands a kind: druba's request (the kind's own options are its front end's) and
// the distributed search's own (how states travel, the progress line); `test`'s bounds are the
// request's.
struct Request {
  run::RunOptions options;
  distributed::Request search;
};

// The model or an option naming a part of it could not be read (at some process, or at process
// 0 by the strategy): the message, the same at every process, which ends them all.
struct ReadFailed {
  std::string message;
};

class Kind {
 public:
  virtual ~Kind() = default;
  // The kind as druba runs it: names, extension, option group (and its options struct).
  virtual run::FrontEnd& front() = 0;
  // The options of druba's `command` (kind-free ones and the kind's group's, as spelt on the
  // command line) that this kind's distributed run takes, beside the model.
  virtual std::span<const std::string_view> Takes(run::Command command) const = 0;
  // Runs `request` at every process (collective). At process 0 the outcome carries druba's
  // report; elsewhere it is empty. Throws ReadFailed at every process on bad input.
  virtual run::Outcome Run(distributed::Comm& comm, const Request& request, LimitWatch& limits) = 0;
};

}  // namespace druba::mpi
