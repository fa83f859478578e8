"""An assistant played by a chat model: the session's turns become its messages."""

from __future__ import annotations

from capabench.models import PLAIN, ChatModel, Completion, Message, ReplyOptions
from capabench.records import Turn
from capabench.simulate.prompt import system_prompt

# A reply ends with its first code block: the submission can't be cut mid-code by the token
# limit while the model goes on writing (small models ramble or repeat after the code). Nor
# does it go on to write the user's next turn, as a small model copying a rendered history
# ("User: ...") does.
CODE_END = "\n```\n"
STOPS = (CODE_END, "\nUser:")


class ModelAssistant:
    def __init__(
        self, model: ChatModel, *, system: str | None = None, stop_after_code: bool = False
    ) -> None:
        self.model = model
        self.system = system if system is not None else system_prompt()  # no history given
        self.stop_after_code = stop_after_code
        self.completions: list[Completion] = []

    def reply(self, turns: list[Turn]) -> str:
        messages = [Message(role="system", content=self.system)]
        messages += [Message(role=t.role, content=t.text) for t in turns]
        # Only what is asked for goes in the call: a ChatModel written before `stop` still works.
        completion = self.model.complete(
            messages, ReplyOptions(stop=STOPS) if self.stop_after_code else PLAIN
        )
        self.completions.append(completion)
        text = completion.text
        if self.stop_after_code and text.count("```") % 2 == 1 and not completion.truncated:
            text += "\n```"  # the stop string is left out of the reply: close the block again
        return text
