# A small room-and-objects text game, TextWorld/ALFWorld-like, as a Python text env for
# `python_text("./python/rooms.py:Rooms")` (examples/python-text-rooms.rlx, docs/agents.md).
#
# The agent starts in the hall. A key lies in the room to the east or to the west; the door to
# the garden, north or south of the hall, is locked. Win by taking the key, coming back, opening
# the door and going through it:
#
#   hall. key: east. door: north      <- the opening (where the key and the door are vary by seed)
#   > go east                           east room. a key.
#   > take key                          you have the key.
#   > go west                           hall. door: north.
#   > open door                         the door opens.
#   > go north                          (the garden: reward 1, the dialogue ends)
#
# Any other command gets "nothing happens." and no reward. Messages are short on purpose: the
# character-level transformer reads the whole dialogue on one token grid (max_observation).
# No imports beyond the standard library: any Python 3 runs it.
import random

OPPOSITE = {'east': 'west', 'west': 'east', 'north': 'south', 'south': 'north'}


class Rooms:
    def __init__(self, shaped=False):
        # shaped: 0.1 for each step of progress (the key taken, the door opened), else only the win pays.
        self.shaped = shaped

    def reset(self, seed=None, options=None):
        rng = random.Random(seed)
        self.key_side = rng.choice(['east', 'west'])
        self.door_side = rng.choice(['north', 'south'])
        self.room = 'hall'
        self.has_key = False
        self.door_open = False
        self.moves = 0
        return f'hall. key: {self.key_side}. door: {self.door_side}', {}

    def _info(self, won=False):
        return {'has_key': self.has_key, 'door_open': self.door_open, 'moves': self.moves, 'success': won}

    def step(self, action):
        self.moves += 1
        command = ' '.join(action.strip().lower().split())
        reward = 0.0
        reply = 'nothing happens.'
        if self.room == 'hall':
            if command == f'go {self.key_side}':
                self.room = self.key_side
                reply = f'{self.room} room.' + ('' if self.has_key else ' a key.')
            elif command == 'open door' and self.has_key and not self.door_open:
                self.door_open = True
                reward = 0.1 if self.shaped else 0.0
                reply = 'the door opens.'
            elif command == f'go {self.door_side}' and self.door_open:
                return 'the garden!', 1.0, True, False, self._info(won=True)
            elif command == 'open door' and not self.has_key:
                reply = 'it is locked.'
        else:
            if command == 'take key' and not self.has_key:
                self.has_key = True
                reward = 0.1 if self.shaped else 0.0
                reply = 'you have the key.'
            elif command == f'go {OPPOSITE[self.room]}':
                self.room = 'hall'
                reply = f'hall. door: {self.door_side}.'
        return reply, reward, False, False, self._info()

    def expert(self, observation):
        """The shortest way out from where the agent is now (demonstrations for SFT)."""
        if self.room != 'hall':
            return 'take key' if not self.has_key else f'go {OPPOSITE[self.room]}'
        if not self.has_key:
            return f'go {self.key_side}'
        return 'open door' if not self.door_open else f'go {self.door_side}'
