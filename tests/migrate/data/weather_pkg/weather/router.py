"""Command parsing with structural pattern matching."""


def describe(command: str) -> str:
    match command.split():
        case ["forecast", city]:
            return f"forecast for {city}"
        case ["forecast", city, days] if days.isdigit():
            return f"forecast for {city}, {days} days"
        case ["help" | "?"]:
            return "commands: forecast CITY [DAYS]"
        case [verb, *rest]:
            return f"unknown command {verb!r} ({len(rest)} arguments)"
        case _:
            return "empty command"
