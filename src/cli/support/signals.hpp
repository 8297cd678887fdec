// src/cli/support/signals.hpp — what the command does when a signal arrives, so that it never
// leaves a half-written file or dies without saying why:
//
//   SIGINT, SIGTERM, SIGHUP   remove the temporary file of a save in progress, then die of the
//                             signal as usual (the destination keeps its old contents)
//   SIGXFSZ                   ignored: a write past `ulimit -f` then fails with EFBIG, which is
//                             reported as an error naming the file ("File too large")
//   SIGBUS                    a mapped filter file was truncated under us: say which file changed
//                             while it was being read, exit 2
#pragma once

#include <string>

namespace bloomkit::cli {

/// Installs the handlers above. Called once, first thing in main().
void install_signal_handlers();

/// Names the file whose mapping a SIGBUS would come from (empty: none), for the message.
void set_mapped_file(const std::string& name);

}  // namespace bloomkit::cli
