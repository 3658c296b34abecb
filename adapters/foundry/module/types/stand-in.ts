// The rule the Foundry stand-in (test/foundry-stub.mjs) is held to: it may only implement what
// Foundry's types declare (fvtt-types, and types/foundry-v14.ts for what v14 adds). Each of its
// classes and globals is checked with StandIn<its type, Foundry's>: a member Foundry's type
// does not declare fails the type check, naming the member. (Its own machinery is private:
// `#` members and module-level functions, which are no members.)

import type { ActiveEffectV14, RegionDocumentV14, TokenDocumentV14 } from "./foundry-v14";

/** The members of `S` that `F` does not declare. */
export type Undeclared<S, F> = Exclude<keyof S, keyof F>;

/** `S` itself when every member of `S` is one `F` declares (or one of `P`, protected members
 * of `F`, which `keyof` does not see: see Protected below); else a type naming the others, which
 * nothing of type `S` is assignable to. */
export type StandIn<S, F, P extends PropertyKey = never> = [Exclude<Undeclared<S, F>, P>] extends [never]
  ? S
  : { "members Foundry's types do not declare": Exclude<Undeclared<S, F>, P> };

/** Protected members of Foundry's classes the stand-in implements: each class below compiles
 * only while Foundry's types declare them (a subclass reaches them through `super`). */
export type Protected = {
  RegionBehaviorType: "_handleRegionEvent";
  TokenRuler: "_getSegmentStyle" | "_getGridHighlightStyle";
};
export abstract class ProtectedRegionBehaviorType extends foundry.data.regionBehaviors.RegionBehaviorType<{}> {
  declared(): [Protected["RegionBehaviorType"], unknown][] {
    return [["_handleRegionEvent", super._handleRegionEvent]];
  }
}
export abstract class ProtectedTokenRuler extends foundry.canvas.placeables.tokens.TokenRuler {
  declared(): [Protected["TokenRuler"], unknown][] {
    return [["_getSegmentStyle", super._getSegmentStyle], ["_getGridHighlightStyle", super._getGridHighlightStyle]];
  }
}

/** Foundry's types of what the stand-in stands in for (names the stand-in's file shadows). */
export interface Foundry {
  Hooks: typeof Hooks;
  Collection: foundry.utils.Collection<unknown>;
  Document: foundry.abstract.Document.Any;
  TokenDocument: TokenDocumentV14;
  RegionDocument: RegionDocumentV14;
  RegionBehavior: RegionBehavior;
  RegionBehaviorType: foundry.data.regionBehaviors.RegionBehaviorType<{}>;
  RegionBehaviorTypeClass: typeof foundry.data.regionBehaviors.RegionBehaviorType;
  Scene: Scene;
  Actor: Actor;
  ActiveEffect: ActiveEffectV14;
  Combat: Combat;
  CombatClass: typeof Combat;
  Combatant: Combatant;
  ChatMessage: ChatMessage;
  ChatMessageClass: typeof ChatMessage;
  User: User;
  Users: foundry.documents.collections.Users;
  Settings: foundry.helpers.ClientSettings;
  Localization: foundry.helpers.Localization;
  DialogV2: foundry.applications.api.DialogV2;
  DialogV2Class: typeof foundry.applications.api.DialogV2;
  TokenRuler: foundry.canvas.placeables.tokens.TokenRuler;
  Game: Game;
  Notifications: NonNullable<typeof ui.notifications>;
  CONFIG: typeof CONFIG;
  TokenConfig: typeof CONFIG.Token;
  ActiveEffectConfig: import("./foundry-v14").ActiveEffectConfigV14;
  RegionBehaviorConfig: typeof CONFIG.RegionBehavior;
  CONST: typeof CONST;
  REGION_EVENTS: typeof CONST.REGION_EVENTS;
  foundry: typeof foundry;
}
