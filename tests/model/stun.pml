/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's SMT sibling stunning under ASI: two hyperthread siblings, each
 * running one vCPU thread (pinned), entering and leaving guests, taking
 * VM exits that fault out of the restricted space, interrupts and NMIs,
 * reschedules, returns to userspace and CPU hotplug.
 *
 * Abstracted (paths under build/linux, branch asi):
 *   arch/x86/kvm/asi.c   struct kvm_asi_cpu, kvm_asi_find_core_siblings(),
 *                        kvm_asi_find_siblings(), kvm_asi_vcpu_load(),
 *                        kvm_asi_unstun(), kvm_asi_post_exit(),
 *                        kvm_asi_wait_out_of_guests(),
 *                        kvm_asi_post_enter(), kvm_asi_flush(),
 *                        kvm_asi_stunned(), kvm_asi_stun_wait(),
 *                        kvm_asi_guest_mode(), kvm_asi_vcpu_put()
 *   arch/x86/kvm/x86.c   kvm_vcpu_exit_request(), vcpu_enter_guest(),
 *                        vcpu_run(), kvm_arch_vcpu_load(),
 *                        kvm_arch_vcpu_put()
 *   arch/x86/kvm/vmx/vmx.c  vmx_vcpu_enter_exit(), vmx_vcpu_run()
 *                        (fastpath re-entry), vmx_do_nmi_irqoff()
 *   virt/kvm/kvm_main.c  vcpu_put(), kvm_sched_out(), kvm_sched_in()
 *   arch/x86/mm/asi/switch.c  asi_enter(), __asi_enter(), asi_exit_reason(),
 *                        asi_handle_page_fault() (the hooks' callers;
 *                        the address-space details are asi.pml's)
 *   arch/x86/kernel/smpboot.c  set_cpu_sibling_map(),
 *                        remove_siblinginfo() (topology_sibling_cpumask()
 *                        holds online siblings only)
 *
 * Memory is sequentially consistent: the code orders the stores and loads
 * that matter with full barriers (smp_mb__after_atomic() in
 * kvm_asi_post_exit(), smp_mb__after_srcu_read_unlock() before
 * kvm_vcpu_exit_request()). A reschedule IPI is pending until the CPU
 * takes it with interrupts on or its guest exits; the guest runs
 * meanwhile. Faults between the last kvm_vcpu_exit_request() and VM
 * entry are left out: that path touches only mapped memory. The stunning
 * CPU's wait has no timeout here (the kernel's gives up after
 * kvm.asi_stun_wait_us and counts it in stun_timeouts), and the IPI is
 * always sent (the kernel sends none from NMI context on an xAPIC).
 * kvm.asi_stun stays on.
 *
 * "Exposed": the CPU runs in the full address space on behalf of its
 * vCPU after an ASI exit, up to its next entry into the restricted space,
 * whose flush comes before the release (kvm_asi_post_enter()), or up to
 * vcpu_put(), after which its thread may run anything (the design's
 * scope).
 *
 * The model follows the code as fixed (README.md, Findings); each BUG_*
 * macro puts back the code as it was, and each must fail:
 *   BUG_HOTPLUG_SETUP     the sibling list is the online siblings at the
 *                         CPU's first vCPU load, kept for good
 *   BUG_ONLINE_SIBLINGS   the online siblings at each stun (a sibling
 *                         that comes online while this CPU is out is
 *                         not held)
 *   BUG_PUT_THEN_EXIT     an exit after vcpu_put() stuns: nothing
 *                         releases it
 *   BUG_TRACE_BEFORE_HOOK the asi_exit tracepoint's probe runs before the
 *                         post_asi_exit hook stuns the sibling
 *   BUG_NO_WAIT           the stunning CPU goes on right after its IPI,
 *                         while the sibling's guest may still run
 *   BUG_EARLY_RELEASE     kvm_asi_stun_wait() releases, flushed, on the
 *                         full tables, which vcpu_enter_guest() then
 *                         keeps using up to asi_enter()
 *   BUG_WAIT_RESTUN       as BUG_EARLY_RELEASE, and the release comes
 *                         only before the wait loop, not after an
 *                         interrupt there stunned
 *
 * Properties: MUTEX (never a guest running next to an exposed sibling),
 * stunned <= 1 (nobody holds a sibling twice) and no invalid end state,
 * in the safety search; unstun0/unstun1 (a held CPU is released at some
 * point), as acceptance cycles under weak fairness. Mutants, each must
 * break one: MUTANT_SKIP_UNSTUN (the release forgets the sibling's
 * count), MUTANT_NO_STUN_IPI (no kick of a sibling in a guest: the wait
 * never ends next to a guest that runs on without exits),
 * MUTANT_EXEMPT_STUNNING (the wait lets a stunning sibling be, which may
 * be past its last check, about to enter its guest).
 */

#define NONE	0
#define ASI	1

#ifndef NRUNS
#define NRUNS	1		/* KVM_RUN calls per vCPU thread */
#endif
#ifndef NHOTPLUG
#define NHOTPLUG 2		/* offline/online transitions in the run */
#endif

/* struct kvm_asi_cpu, per CPU */
byte stunned[2];		/* siblings that hold this CPU */
bool restricted[2];		/* in a VM's restricted space */
bool in_guest[2];		/* from the last check to VM exit */
bool stunning[2];		/* this CPU holds its sibling */
bool waiting[2];		/* in kvm_asi_wait_out_of_guests() */
bool has_sib[2];		/* nr_siblings: 0 or 1 */
#ifdef BUG_HOTPLUG_SETUP
bool ready[2];			/* sibling list set up */
#endif

/* The rest of the CPU */
bool curr[2];			/* asi_pcpu.state.curr_asi != NULL */
bool online[2];
bool ipi[2];			/* reschedule IPI pending */
bool guest[2];			/* executing guest code */
bool exposed[2];
bool loaded[2];			/* a vCPU is loaded here */
byte runs[2];
byte hotplug = NHOTPLUG;

/* Never a guest next to an exposed sibling. */
#define MUTEX_OK	(!(exposed[0] && guest[1]) && !(exposed[1] && guest[0]))
#define MUTEX	assert(MUTEX_OK)

/* Liveness: a stunned CPU is released at some point. */
ltl unstun0 { [] ((stunned[0] > 0) -> <> (stunned[0] == 0)) }
ltl unstun1 { [] ((stunned[1] > 0) -> <> (stunned[1] == 0)) }

/*
 * Steps: a step is atomic when only one of its accesses is to something
 * the sibling reads or writes, when the others are writes of the
 * monitor-only "exposed" moved earlier (which can only add violations),
 * or when the other is restricted[], which only decides whether the
 * sibling kicks this CPU, outside a guest at that point.
 */

/* kvm_asi_unstun(): any context, may run restricted. */
inline unstun()
{
	atomic {
		if
		:: stunning[me] ->
#ifndef MUTANT_SKIP_UNSTUN
			if
			:: has_sib[me] -> stunned[sib]--
			:: else -> skip
			fi;
#endif
			stunning[me] = false
		:: else -> skip
		fi
	}
}

/*
 * asi_exit_reason() for a fault (ASI_EXIT_PAGE_FAULT, or EXPLICIT): CR3
 * and curr_asi, then the post_asi_exit hook, kvm_asi_post_exit(), right
 * after the exit and before the faulting code goes on with sensitive
 * memory: hold the sibling, and kick it if it may be in a guest.
 */
inline asi_exit_fault()
{
	atomic {
		curr[me] = NONE;
#ifdef BUG_TRACE_BEFORE_HOOK
		/* asi_trace(asi_exit): its probes and buffers are sensitive */
		exposed[me] = loaded[me];
		MUTEX
	};
	atomic {
#endif
		restricted[me] = false;
#ifdef BUG_ONLINE_SIBLINGS
		/* kvm_asi_find_siblings() from the online siblings only */
		if
		:: !stunning[me] -> has_sib[me] = online[sib]
		:: else -> skip
		fi;
#endif
#ifdef BUG_PUT_THEN_EXIT
		l_stun = !stunning[me] && has_sib[me];
#else
		/* no vCPU loaded here: nothing to protect */
		l_stun = !stunning[me] && has_sib[me] && loaded[me];
#endif
		if
		:: l_stun ->
			stunning[me] = true;
#ifndef BUG_NO_WAIT
			waiting[me] = true;
#endif
			stunned[sib]++;
			assert(stunned[sib] <= 1)
		:: else -> skip
		fi
	};
	/* smp_mb__after_atomic(), then look at the sibling */
	atomic {
		skip;
#ifndef MUTANT_NO_STUN_IPI
		if
		:: l_stun && (in_guest[sib] || restricted[sib]) && online[sib] ->
			ipi[sib] = true
		:: else -> skip
		fi;
#endif
#ifndef BUG_NO_WAIT
	};
	/*
	 * kvm_asi_wait_out_of_guests(): until the sibling is past its VM
	 * exit, or itself waiting here (an exit before its next exit
	 * request check, which sees this hold).
	 */
	if
#ifdef MUTANT_EXEMPT_STUNNING
	:: l_stun -> (!in_guest[sib] || stunning[sib] || !online[sib])
#else
	:: l_stun -> (!in_guest[sib] || waiting[sib] || !online[sib])
#endif
	:: else -> skip
	fi;
	atomic {
		waiting[me] = false;
#endif
		/* on behalf of the vCPU only while it is loaded */
		exposed[me] = loaded[me];
		MUTEX
	}
}

/* SCHEDULE, RETURN_TO_USER: kvm_asi_post_exit() holds nobody. */
inline asi_exit_leave()
{
	atomic { curr[me] = NONE; restricted[me] = false }
}

/*
 * asi_enter() -> __asi_enter(), which switches only when the CPU is out;
 * then the post_asi_enter hook, kvm_asi_post_enter(): flush
 * (kvm_asi_flush()), then let the sibling go.
 */
inline asi_enter()
{
	if
	:: curr[me] == NONE ->
		curr[me] = ASI;
		atomic { exposed[me] = false; restricted[me] = true };
		unstun()
	:: else -> skip
	fi
}

/*
 * A handler on this CPU, interrupts on: the IPI is taken, or a handler
 * that touches sensitive memory while restricted faults out. The target
 * is clear here (set only around VM entry, interrupts off), so the
 * return does not re-enter.
 */
inline irq_point()
{
	if
	:: ipi[me] -> ipi[me] = false
	:: curr[me] == ASI -> asi_exit_fault()
	:: skip
	fi
}

#if defined(BUG_EARLY_RELEASE) || defined(BUG_WAIT_RESTUN)
/*
 * The old kvm_asi_stun_wait(): release the sibling (flushed first), then
 * wait while held; the CPU stays on the full tables, exposed, up to
 * asi_enter().
 */
inline stun_wait()
{
	unstun();
	do
	:: stunned[me] == 0 -> break
	:: stunned[me] > 0 ->
		irq_point();
#ifndef BUG_WAIT_RESTUN
		unstun()
#endif
	:: stunned[me] > 0 -> break		/* need_resched(), signal */
	od
}
#else
/*
 * kvm_asi_stun_wait(): a CPU that holds its sibling enters the restricted
 * space, whose flush releases it; then, while held, it waits with
 * interrupts on until released or until the task must reschedule or
 * handle a signal. The target is set meanwhile, so an interrupt that
 * faults out comes back in on its return, and the loop enters again
 * after any other exit.
 */
inline stun_wait()
{
	if
	:: stunning[me] -> asi_enter()
	:: else -> skip
	fi;
	if
	:: stunned[me] > 0 ->
		do
		:: true ->
			if
			:: ipi[me] -> ipi[me] = false
			:: curr[me] == ASI -> asi_exit_fault(); asi_enter()
			:: skip
			fi;
			if
			:: stunning[me] -> asi_enter()
			:: else -> skip
			fi;
			/*
			 * need_resched(), signal: kvm_vcpu_exit_request()
			 * then sends the CPU out of vcpu_run()
			 */
			if
			:: stunned[me] == 0 -> break
			:: stunned[me] > 0 -> skip
			:: true -> goto leave
			fi
		od
		/* asi_set_target_unrestricted() */
	:: else -> skip
	fi
}
#endif

/*
 * kvm_arch_vcpu_put() -> kvm_asi_vcpu_put(): the thread may run anything
 * next, so exposure is out of the design's scope from here on (no flush).
 */
inline vcpu_put()
{
	atomic { exposed[me] = false; loaded[me] = false; MUTEX };
	unstun()
}

proctype cpu(bit me)
{
	bit sib = 1 - me;
	bool l_stun;

	/* No vCPU here: userspace, other tasks, idle, or offline. */
end_idle:
	do
	:: online[me] && runs[me] < NRUNS -> runs[me]++; goto load
	:: hotplug > 0 ->
		/* tasks migrated off: no vCPU loaded here */
		atomic { hotplug--; online[me] = !online[me] }
	od;

load:
	/* kvm_arch_vcpu_load() -> kvm_asi_vcpu_load() */
	atomic {
		loaded[me] = true;
#ifdef BUG_HOTPLUG_SETUP
		/* old: topology_sibling_cpumask() at the first load, for good */
		if
		:: !ready[me] -> has_sib[me] = online[sib]; ready[me] = true
		:: else -> skip
		fi
#endif
	};

again:
	/* vcpu_enter_guest() */
	stun_wait();
	/* local_irq_disable(); kvm_asi_guest_mode(true); smp_mb */
	in_guest[me] = true;
	/* an NMI that faults: no target yet, so it stays out */
	if
	:: curr[me] == ASI -> asi_exit_fault()
	:: skip
	fi;
	/*
	 * kvm_vcpu_exit_request(): stunned, or need_resched() or a signal
	 * (a pending request is handled on the next way round: left out).
	 */
	if
	:: stunned[me] > 0 -> in_guest[me] = false; goto handled
	:: true -> in_guest[me] = false; goto leave
	:: stunned[me] == 0 -> skip
	fi;

reenter:
	/* vmx_vcpu_enter_exit(): asi_enter() with interrupts off */
	asi_enter();
	/* VM entry; a pending IPI makes the guest exit at once */
	atomic { guest[me] = true; MUTEX };
	/*
	 * VM exit: one of the guest's own, or, for a guest that runs on
	 * without any, only the IPI's.
	 */
	if
	:: skip
	:: skip -> end_guest_runs_on: ipi[me]
	fi;
	atomic { guest[me] = false; ipi[me] = false; MUTEX };
	/*
	 * vmx_do_nmi_irqoff(): an NMI exit is handled with the target still
	 * set; a handler that faults leaves, the NMI return re-enters.
	 */
	if
	:: curr[me] == ASI ->
		asi_exit_fault();
		asi_enter()
	:: skip
	fi;
	/* asi_set_target_unrestricted(): restricted until a fault */
	/* vmx_vcpu_run() fastpath, in_guest still set */
	if
	:: curr[me] == ASI -> asi_exit_fault()
	:: skip
	fi;
	if
	:: stunned[me] == 0 -> goto reenter	/* EXIT_FASTPATH_REENTER_GUEST */
	:: true -> skip
	fi;
	/* kvm_asi_guest_mode(false); interrupts on later */
	in_guest[me] = false;
	irq_point();
	/* the exit handler, restricted until it faults out */
	if
	:: curr[me] == ASI -> asi_exit_fault()
	:: skip
	fi;
	irq_point();

handled:
	/* vcpu_run(): again, reschedule, or back to userspace */
	if
	:: goto again
	:: goto leave
	fi;
leave:
	if
	:: true ->
		/* xfer_to_guest_mode_handle_work() -> schedule() */
		if
		:: curr[me] == ASI -> asi_exit_leave()
		:: else -> skip
		fi;
		vcpu_put();		/* kvm_sched_out() */
		goto load		/* kvm_sched_in() */
	:: true ->
		/* kvm_arch_vcpu_ioctl_run() -> vcpu_put(), return to user */
		vcpu_put();
		/* still restricted: an interrupt or fault on the way out */
		if
		:: curr[me] == ASI -> asi_exit_fault()
		:: skip
		fi;
		/* arch_exit_to_user_mode_prepare() */
		if
		:: curr[me] == ASI -> asi_exit_leave()
		:: else -> skip
		fi;
		goto end_idle
	fi
}

init
{
	atomic {
		online[0] = true;
		online[1] = true;
#ifndef BUG_HOTPLUG_SETUP
		/* kvm_asi_find_core_siblings(): by APIC ID, at boot */
		has_sib[0] = true;
		has_sib[1] = true;
#endif
		run cpu(0);
		run cpu(1)
	}
}
