// What Foundry VTT v14 has that the community type definitions (fvtt-types, newest on npm:
// 13.346.0-beta) do not declare yet, written from Foundry's own API documentation, Version 14.
// Each entry names its page (https://foundryvtt.com/api/v14/...). Only declarations: the module
// and its stand-in are checked against fvtt-types plus this file (tsconfig.json), nothing else.
// (A .ts file rather than a .d.ts so that the checker checks this file too: declaration files
// are skipped with the library's.)

import "../node_modules/fvtt-types/src/configuration/hooks.d.mts";

/** The v14 level of a position: `level`, "the level ID"
 * (interfaces/foundry.documents.types.TokenMeasuredMovementWaypoint.html,
 * interfaces/foundry.documents.types.TokenProcessedMovementWaypoint.html). */
export type Leveled<T> = T & { level?: string | null };

/** TokenDocument#level: the level (floor) a token stands on; with x, y, elevation, depth a field
 * that "must not be altered from source during data preparation"
 * (classes/foundry.documents.TokenDocument.html). */
export type TokenDocumentV14 = Leveled<TokenDocument>;

/** A movement waypoint with its level (interfaces/foundry.documents.types.
 * TokenMeasuredMovementWaypoint.html: `level: string`, `depth: number`). */
export type WaypointV14 = Leveled<TokenDocument.MeasuredMovementWaypoint> & { depth?: number };

/** A position with its level: TokenPosition's `level` (the origin and destination of a
 * movement, interfaces/foundry.documents.types.TokenMovementOperation.html). */
export type PositionV14 = Leveled<TokenDocument.MovementWaypoint>;

/** TokenMovementOperation / TokenMovementData as v14 documents them
 * (interfaces/foundry.documents.types.TokenMovementOperation.html,
 * interfaces/foundry.documents.types.TokenMovementData.html): the v13 shape, its waypoints and
 * positions carrying their level; `state` gains "planned"
 * (types/foundry.documents.types.TokenMovementState.html). */
export interface MovementV14 {
  readonly id: string;
  readonly chain: readonly string[];
  readonly origin: PositionV14;
  readonly destination: PositionV14;
  readonly passed: { readonly waypoints: readonly WaypointV14[] };
  readonly pending: { readonly waypoints: readonly WaypointV14[] };
  readonly method: TokenDocument.MovementMethod;
  readonly autoRotate: boolean;
  readonly showRuler: boolean;
  readonly constrainOptions: object;
  readonly user?: User;
  readonly state?: "completed" | "paused" | "planned" | "pending" | "stopped";
}

/** EffectDurationData, v14 (interfaces/foundry.documents.types.EffectDurationData.html):
 * `value` `units` ("rounds", "turns", "seconds"...), ending at the `expiry` event; `expired`
 * once Foundry's ActiveEffectRegistry has expired it (classes/foundry.helpers.
 * ActiveEffectRegistry.html; CONFIG.ActiveEffect.expiryAction, variables/CONFIG.ActiveEffect.html). */
export interface EffectDurationV14 {
  value: number | null;
  units: "years" | "months" | "days" | "hours" | "minutes" | "seconds" | "rounds" | "turns";
  expiry: string | null;
  expired?: boolean;
}

/** An ActiveEffect with the v14 duration (interfaces/foundry.documents.types.ActiveEffectData.html). */
export type ActiveEffectV14 = Omit<ActiveEffect, "duration"> & { duration: EffectDurationV14 };

/** RegionData#levels: "The level IDs" a region lies on
 * (interfaces/foundry.documents.types.RegionData.html). */
export type RegionDocumentV14 = RegionDocument & { levels?: string[] | null };

declare module "../node_modules/fvtt-types/src/configuration/hooks.d.mts" {
  interface HookConfig {
    /** functions/hookEvents.preMoveToken.html: on the mover's client before each movement leg;
     * `false` rejects the whole movement. */
    preMoveToken: (document: TokenDocument, movement: MovementV14, operation: Record<string, unknown>) => boolean | void;
    /** functions/hookEvents.moveToken.html: on every client after each movement leg. */
    moveToken: (document: TokenDocument, movement: MovementV14, operation: Record<string, unknown>, user: User) => void;
  }
}

/** CONFIG.ActiveEffect#expiryAction: "The action taken by the ActiveEffectRegistry upon an
 * ActiveEffect's expiration. An update action will set the value of
 * ActiveEffectDuration#expired." (variables/CONFIG.ActiveEffect.html). */
export type ActiveEffectConfigV14 = typeof CONFIG.ActiveEffect & { expiryAction: "update" | "delete" | null };
