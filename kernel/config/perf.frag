# Measurement kernel (make measure): the test kernel without the debugging
# that runs on every VM exit (lockdep's IRQ-state tracking, DEBUG_VM checks)
# and would dominate the exit rates. (The ASI exits are the same in both:
# the debugging keeps its state non-sensitive.) Merged after the *.config
# fragments.
CONFIG_PROVE_LOCKING=n
CONFIG_DEBUG_VM=n
CONFIG_DEBUG_VIRTUAL=n
CONFIG_DEBUG_ATOMIC_SLEEP=n
# CONFIG_JUMP_LABEL stays off as in the test kernel: with it on, one boot
# in four under TCG oopsed on an int3 left by jump-label patching in
# __schedule() (asi=off), not investigated yet. Without it every static key,
# such as a tracepoint's, is a memory read that restricted spaces fault on.
# No Rust: the measurement kernel needs none of it, and its build would add
# minutes to every cold "make test" (the Bochs stage boots this kernel). Its
# set of marks is the C one (marks_set.c), and it has no Rust sample.
CONFIG_RUST=n
CONFIG_RUST_KERNEL_DOCTESTS=n
CONFIG_ADDRESS_SPACE_ISOLATION_RUST_MARKS=n
CONFIG_SAMPLES_RUST=n
CONFIG_SAMPLE_RUST_ASI=n
