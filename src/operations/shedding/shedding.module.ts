import { Module } from '@nestjs/common';
import { EventLoopLag } from './event-loop-lag';
import { LAG_SOURCE, LoadShedder } from './load-shedder';

/** Shedding load when the instance is saturated: the shedder the onRequest hook asks, and its loop-delay timer. */
@Module({
  providers: [{ provide: LAG_SOURCE, useFactory: () => new EventLoopLag() }, LoadShedder],
  exports: [LoadShedder],
})
export class SheddingModule {}
