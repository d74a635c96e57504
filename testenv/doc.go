// Package testenv gives tests real desktops — package xvfb's private Xvfb
// with its own session bus and AT-SPI, torn down by PID — and the project's
// fixture application, which logs every event it receives so a test can
// check an effect without trusting the tool under test.
//
// Main uses the desktops' marker (VIBESPACE_TESTENV) to fail a test binary
// that leaves a process or a temp dir behind.
//
// # In tests
//
// NeedIntegration skips loudly when a binary is missing, or fails when
// VIBESPACE_INTEGRATION=1 (make test and CI set it: there nothing may skip).
// SharedDesktop gives one desktop per test binary; wire Main as TestMain.
package testenv
