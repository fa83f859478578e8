"""Ten communication styles. Each reads like a different person; none changes what is asked."""

from __future__ import annotations

from capabench.records import Profile

PROFILES: tuple[Profile, ...] = (
    Profile(
        id="terse-expert", expertise="expert", verbosity="terse", tone="curt",
        opening="Need this:\n{signature}\n{task}",
        cue="{cue}.", closing="",
        answer="{statement}", unsure="Your call.",
        failure="Fails: {detail}", success="Good.",
    ),
    Profile(
        id="friendly-novice", expertise="novice", verbosity="verbose", tone="warm, apologetic",
        opening="Hi! Sorry if this is a basic question, I'm still learning Python. Could you help me write this function?\n\n{signature}\n\nHere's what it should do:\n{task}",
        cue="Oh, and {cue}, please!", closing="Thank you so much in advance!",
        answer="Oh sorry, I should have said! {statement}", unsure="Hmm, I'm honestly not sure... whatever you think is best!",
        failure="Hmm, I tried it and it didn't quite work, sorry :( Here's what I got: {detail}", success="It works!! Thank you so much!",
    ),
    Profile(
        id="formal-manager", expertise="intermediate", verbosity="moderate", tone="formal",
        opening="Good afternoon. Please implement the following function for our team.\n\nSignature: {signature}\n\nRequirements:\n{task}",
        cue="Additionally, {cue}.", closing="Kind regards.",
        answer="To clarify: {statement}", unsure="I have no specific requirement there; please use your professional judgement.",
        failure="The submission did not pass our checks. Details: {detail}", success="Confirmed, this meets the requirements. Thank you.",
    ),
    Profile(
        id="hurried-dev", expertise="intermediate", verbosity="terse", tone="rushed, lowercase",
        opening="quick one, need {signature} asap\n{task}",
        cue="{cue} btw", closing="thx",
        answer="{statement}", unsure="dunno, whatever works",
        failure="nope: {detail}", success="ok works, thx",
    ),
    Profile(
        id="academic", expertise="expert", verbosity="verbose", tone="precise, measured",
        opening="I would like an implementation of the function\n\n    {signature}\n\nwith the following specification:\n{task}",
        cue="I should note that {cue}.", closing="I would appreciate a careful implementation.",
        answer="A fair question. {statement}", unsure="I have no particular preference on that point; any reasonable choice is acceptable.",
        failure="Unfortunately the implementation is not correct. Observed behaviour: {detail}", success="Thank you, that is correct.",
    ),
    Profile(
        id="enthusiastic-maker", expertise="novice", verbosity="moderate", tone="excited",
        opening="Hey!! Working on a fun side project and I need a function: {signature}\n{task}",
        cue="Also {cue}!", closing="Can't wait to try it!",
        answer="Ah yes!! {statement}", unsure="Ooh, no idea, surprise me!",
        failure="Aw, it broke: {detail}", success="Yesss it works, amazing!",
    ),
    Profile(
        id="skeptical-senior", expertise="expert", verbosity="moderate", tone="skeptical, demanding",
        opening="Write {signature}. Spec below; don't improvise.\n{task}",
        cue="And {cue}, as usual.", closing="Test it before you hand it over.",
        answer="As always: {statement}", unsure="Not relevant. Decide yourself.",
        failure="Wrong. {detail}", success="Fine. That's correct.",
    ),
    Profile(
        id="non-native", expertise="intermediate", verbosity="moderate", tone="simple sentences",
        opening="Hello. I need function {signature}. It must do this:\n{task}",
        cue="Also {cue}.", closing="Thank you.",
        answer="Yes. {statement}", unsure="I do not know. You can choose.",
        failure="It does not work. The result: {detail}", success="Now it works. Thank you.",
    ),
    Profile(
        id="teacher", expertise="expert", verbosity="verbose", tone="explanatory",
        opening="Let's write a function together. The signature is {signature}, and the behaviour we want is:\n{task}",
        cue="One more thing worth knowing: {cue}.", closing="Take your time and explain your choices if you like.",
        answer="Good question, that's exactly the kind of thing to ask. {statement}", unsure="That one is up to you; there's no wrong answer for me there.",
        failure="Close, but not yet. Here's the case that fails: {detail}", success="Well done, that's right.",
    ),
    Profile(
        id="pragmatic-lead", expertise="intermediate", verbosity="moderate", tone="businesslike, bullet points",
        opening="Task:\n- function: {signature}\n- behaviour: {task}",
        cue="- note: {cue}", closing="- deliver: code only is fine",
        answer="- {statement}", unsure="- no constraint there, pick a sensible default",
        failure="- status: failing\n- case: {detail}", success="- status: accepted",
    ),
)  # fmt: skip

PROFILES_BY_ID = {p.id: p for p in PROFILES}
