// The module's own declarations for the checker: its settings, flags, query and Region behavior
// type as Foundry's configuration interfaces take them (fvtt-types' SettingConfig, FlagConfig,
// CONFIG.Queries, DataModelConfig), and the shapes of what it exchanges with the bridge
// (docs/protocol.md, adapters/foundry/models.py).

import type { Watch, WatchFlag } from "../src/geometry.js";
import type { holdBehaviorClass } from "../src/holdregions.js";

/** flags.vttbridge.budget on a token: what the rules allow it this turn (sdk/budget.py). */
export interface Budget {
  speed?: number;
  moved?: number;
  left?: number;
  walk?: number | null;
  run?: number | null;
  sneak?: number | null;
  turn: boolean;
  metric?: string;
  distance?: number;
}

/** The marks of the bridge's own writes and of the moves the module makes for a player. */
export interface Mark {
  seq?: number;
  bridge?: boolean;
  hold?: string;
  moved?: boolean;
  fallback?: string;
  split?: boolean;
  budget?: boolean;
}

/** A move this client or the GM's holds for the bridge. */
export interface Hold {
  id: string;
  sceneId: string;
  tokenId: string;
  token: Record<string, any>;
  changes: Record<string, any>;
  waypoints?: Record<string, unknown>[];
  movementId?: string;
  userId: string | null;
  budget: number;
  maxHold: number;
  closed?: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/** A command from the bridge (protocol: CommandMessage). */
export interface Command {
  seq: number;
  op: string;
  data?: Record<string, unknown>;
  options?: Record<string, unknown> | null;
}

/** The ack of a command or an event. */
export interface CommandAck {
  ok: boolean;
  duplicate?: boolean;
  error?: { code: string; message: string };
  [key: string]: unknown;
}

/** The bridge's word on this connection (protocol: Notice). */
export interface Notice {
  code: string;
  message?: string;
  companion?: { name: string; version: string };
  supported?: string;
  bridge?: string;
  older?: boolean;
}

/** One condition to show or clear (models.py StatusToggle). */
export interface StatusToggle {
  id: string;
  active: boolean;
  name?: string | null;
  img?: string | null;
  duration?: import("./foundry-v14").EffectDurationV14 | null;
}

/** What the query carries to the player's client. */
export interface PromptQuery {
  prompt: string;
  question: string;
  options: string[];
  default: string;
  timeout: number | null;
  token: string | null;
}

/** The User.query command (models.py UserQueryData). */
export interface PromptCommand {
  userId: string | null;
  prompt: string;
  question: string;
  options: string[];
  default: string;
  timeout?: number | null;
  token?: string | null;
  fallback: { content: string; whisper?: string[]; speaker?: object; flags?: Record<string, any> };
}

export type { Watch, WatchFlag };

declare global {
  interface SettingConfig {
    "vttbridge.serverUrl": string;
    "vttbridge.world": string;
    "vttbridge.key": string;
    "vttbridge.ruler": boolean;
  }

  interface FlagConfig {
    Scene: { vttbridge: { watch?: WatchFlag } };
    Token: { vttbridge: { budget?: Budget | null } };
    Region: { vttbridge: { hold?: { key: string; token: string | null; exclude: string | null } } };
    ChatMessage: { vttbridge: { bridge?: boolean; prompt?: string; seq?: number; notice?: string } };
    ActiveEffect: { vttbridge: { status?: string } };
  }

  interface DataModelConfig {
    RegionBehavior: { "vttbridge.hold": ReturnType<typeof holdBehaviorClass> };
  }

  namespace CONFIG {
    interface Queries {
      "vttbridge.prompt": (data: PromptQuery, options: { timeout?: number }) => Promise<string | null>;
    }
  }
}
