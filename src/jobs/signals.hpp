// src/jobs/signals.hpp — what a program running jobs does when a signal arrives, so that it never
// leaves a half-written file or dies without saying why:
//
//   SIGINT, SIGTERM, SIGHUP   remove the temporary file of a save in progress, then die of the
//                             signal as usual (the destination keeps its old contents)
//   SIGXFSZ                   ignored: a write past `ulimit -f` then fails with EFBIG, which is
//                             reported as an error naming the file ("File too large")
//   SIGBUS                    a mapped filter file was truncated under us, or its storage failed:
//                             say which file, exit 2
//   SIGRTMIN                  sent by the program to its own reading thread, to interrupt a read
//                             that waits on an idle input once the job has failed elsewhere
//                             (interrupt_reads): the error is reported at once, not when the
//                             producer next writes
//
// The handlers are the process's: a program installs them once (the bloomkit command does, first
// thing); the reads of input_source.hpp honour interrupt_reads() and defer_termination().
#pragma once

#include <pthread.h>

#include <csignal>
#include <string>
#include <string_view>

namespace bloomkit::jobs {

/// Installs the handlers above. Called once, first thing in main(); `program` begins the
/// messages the handlers write ("bloomkit: ...").
void install_signal_handlers(std::string_view program);

/// Names the file whose mapping a SIGBUS would come from (empty: none), for the message.
void set_mapped_file(const std::string& name);

/// What a SIGINT, SIGTERM or SIGHUP that ends the process should say on stderr first, after
/// the program's name (empty: nothing), e.g. that the file a job was about to change was not
/// changed.
void set_termination_note(const std::string& note);

/// From now on the first SIGINT, SIGTERM or SIGHUP does not end the process: it is recorded,
/// and a read of the input it interrupts throws termination_requested, so that the program can
/// finish what it must (dedup saves its state) and exit. A second one ends the process at once.
void defer_termination();

/// The signal that asked the process to stop (0: none yet).
int termination_signal() noexcept;

/// Thrown by an input read interrupted by a deferred termination signal.
struct termination_requested {
    int signal;
};

/// While it lives, the calling thread, and the threads it starts, leave SIGINT, SIGTERM and
/// SIGHUP to other threads. A pipeline of threads (ordered_pipeline.hpp) blocks them in every
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

/// Thrown by a read of an input on a thread that interrupt_reads() named.
struct reads_interrupted {};

/// Makes every read of an input on the thread `reader` throw reads_interrupted until
/// resume_reads(reader), and interrupts the read it may be waiting in (with SIGRTMIN, whose
/// handler this installs if need be). A signal can come just before that read begins: call it
/// again (every few milliseconds) until the reader has stopped. Other threads read on: two jobs
/// in one process do not stop each other.
void interrupt_reads(pthread_t reader) noexcept;

/// Lets `reader` read again, once it has stopped: the thread may run another job.
void resume_reads(pthread_t reader) noexcept;

/// Whether interrupt_reads() named the calling thread (checked by every read).
bool reads_are_interrupted() noexcept;

/// Resumes the reads of `reader` when it goes. Declared before the threads that may interrupt
/// them, it outlives those threads, so no interruption is left behind however the job ends.
class reads_resumed_at_exit {
public:
    explicit reads_resumed_at_exit(pthread_t reader) noexcept : reader_(reader) {}
    ~reads_resumed_at_exit() { resume_reads(reader_); }
    reads_resumed_at_exit(const reads_resumed_at_exit&) = delete;
    reads_resumed_at_exit& operator=(const reads_resumed_at_exit&) = delete;

private:
    pthread_t reader_;
};

}  // namespace bloomkit::jobs
