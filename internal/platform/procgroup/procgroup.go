// Package procgroup starts a command so that everything it starts can be
// ended together, and ends it: a server's command line runs through a
// shell, which may start the server as a child of its own, and ending the
// shell alone would leave the server running.
//
// On Unix the command leads a process group of its own (Setpgid) and is
// ended with a signal to the group. Windows has no process groups that can
// be signalled: the command is started in a console process group of its
// own (so that an interrupt typed at the terminal reaches the tester, which
// then ends the server), and ending it terminates the process and every
// process it started that is still running (found by their parent process
// ids). Windows has no request to end a console process that a program can
// send, so Terminate ends it as Kill does.
package procgroup
