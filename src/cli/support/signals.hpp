// src/cli/support/signals.hpp — what the command does when a signal arrives, so that it never
// leaves a half-written file or dies without saying why:
//
//   SIGINT, SIGTERM, SIGHUP   remove the temporary file of a save in progress, then die of the
//                             signal as usual (the destination keeps its old contents)
//   SIGXFSZ                   ignored: a write past `ulimit -f` then fails with EFBIG, which is
//                             reported as an error naming the file ("File too large")
//   SIGBUS                    a mapped filter file was truncated under us, or its storage failed:
//                             say which file, exit 2
//   SIGRTMIN                  sent by the command to its own reading thread, to interrupt a read
//                             that waits on an idle input once the job has failed elsewhere
//                             (interrupt_reads): the error is reported at once, not when the
//                             producer next writes
#pragma once

#include <pthread.h>

#include <csignal>
#include <string>

namespace bloomkit::cli {

/// Installs the handlers above. Called once, first thing in main().
void install_signal_handlers();

/// Names the file whose mapping a SIGBUS would come from (empty: none), for the message.
void set_mapped_file(const std::string& name);

/// What a SIGINT, SIGTERM or SIGHUP that ends the process should say on stderr first (empty:
/// nothing), e.g. that the file the command was about to change was not changed.
void set_termination_note(const std::string& note);

/// From now on the first SIGINT, SIGTERM or SIGHUP does not end the process: it is recorded,
/// and a read of the input it interrupts throws termination_requested, so that the command can
/// finish what it must (dedup saves its state) and exit. A second one ends the process at once.
void defer_termination();

/// The signal that asked the process to stop (0: none yet).
int termination_signal() noexcept;

/// Thrown by an input read interrupted by a deferred termination signal.
struct termination_requested {
    int signal;
};

/// While it lives, the calling thread, and the threads it starts, leave SIGINT, SIGTERM and
/// SIGHUP to other threads. A pipeline of threads (ordered_blocks.hpp) blocks them in every
/// thread but the one that reads the input, which calls unblock_termination_signals(): a
/// deferred signal must interrupt the read that may be waiting on a slow producer. A signal
/// that comes while every thread blocks it waits, and is taken when the mask is restored.
class termination_signals_blocked {
public:
    termination_signals_blocked();
    ~termination_signals_blocked();
    termination_signals_blocked(const termination_signals_blocked&) = delete;
    termination_signals_blocked& operator=(const termination_signals_blocked&) = delete;

private:
    sigset_t previous_;
};

/// Lets the calling thread take SIGINT, SIGTERM and SIGHUP.
void unblock_termination_signals() noexcept;

/// Thrown by a read of an input once interrupt_reads() was called.
struct reads_interrupted {};

/// Makes every read of an input throw reads_interrupted from now on, and interrupts the read
/// `reader` may be waiting in. A signal can come just before that read begins: call it again
/// (every few milliseconds) until the reader has stopped.
void interrupt_reads(pthread_t reader) noexcept;

/// Whether interrupt_reads() was called (checked by every read).
bool reads_are_interrupted() noexcept;

}  // namespace bloomkit::cli
