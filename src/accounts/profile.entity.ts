// What a user shows others: names, description, avatar; the phone number is PII.
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const ProfileSchema = defineEntity({
  name: 'Profile',
  tableName: 'profile',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    userId: p.uuid().unique(),
    firstName: p.string().length(100),
    lastName: p.string().length(100),
    displayName: p.string().length(100),
    phoneNumber: p.string().length(16).nullable(),
    description: p.text().nullable(),
    avatarUrl: p.string().length(2048).nullable(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
});
export class Profile extends ProfileSchema.class {}
ProfileSchema.setClass(Profile);
